const path = require('path');
const { src, dest, task } = require('gulp');

// Icons (SVG) and codex files (*.node.json) are not compiled by tsc: copy them next to the built code.
function copyAssets() {
	return src(['nodes/**/*.{svg,png,json}', 'credentials/**/*.{svg,png}'], { base: '.', encoding: false }).pipe(
		dest(path.resolve('dist')),
	);
}

task('build:icons', copyAssets);
