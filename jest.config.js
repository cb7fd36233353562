/** Tests are compiled by `npm run build:tools` (tsconfig.tools.json) and run from build/. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/build/test'],
	testMatch: ['**/*.test.js'],
	// background-waits first: it replaces n8n-workflow's waits before anything loads it
	setupFilesAfterEnv: ['<rootDir>/build/test/helpers/background-waits.js', '<rootDir>/build/test/helpers/jest-setup.js'],
	// refuses compiled code older than its sources
	globalSetup: '<rootDir>/scripts/jest-fresh-build.js',
	testTimeout: 60000,
};
