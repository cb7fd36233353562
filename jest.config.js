/** Tests are compiled by `npm run build:tools` (tsconfig.tools.json) and run from build/. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/build/test'],
	testMatch: ['**/*.test.js'],
	setupFilesAfterEnv: ['<rootDir>/build/test/helpers/jest-setup.js'],
	// refuses compiled code older than its sources
	globalSetup: '<rootDir>/scripts/jest-fresh-build.js',
	testTimeout: 60000,
};
