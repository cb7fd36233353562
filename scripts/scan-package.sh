#!/usr/bin/env bash
# Runs n8n's community-package scanner (@n8n/scan-community-package) on this checkout and its packed
# tarball. The scanner's CLI only takes a published package name (it downloads the tarball, the
# registry metadata and the GitHub source), so this calls its own check functions on local files.
#   bash scripts/scan-package.sh        (after npm run build)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

npm pack --silent --pack-destination "$work" >/dev/null
mkdir -p "$work/tarball" && tar -xzf "$work"/n8n-nodes-workplace-*.tgz -C "$work/tarball"

cd "$work"
npm pack --silent @n8n/scan-community-package@0.32.0 >/dev/null
tar -xzf n8n-scan-community-package-0.32.0.tgz
cd package
# Its pinned TypeScript 7 breaks its own eslint parser, one dependency's install script only allows
# pnpm, and its rules load n8n-workflow: TypeScript 5.9, no install scripts, n8n-workflow added.
npm install --silent --ignore-scripts --no-audit --no-fund --legacy-peer-deps >/dev/null
npm install --silent --ignore-scripts --no-audit --no-fund --legacy-peer-deps --no-save typescript@5.9.3 n8n-workflow@1.120.14 >/dev/null

cat > run.mjs <<'JS'
import { analyzePackage, SOURCE_FILE_PATTERNS } from './scanner/scanner.mjs';
const [source, tarball] = process.argv.slice(2);
let failed = 0;
for (const [name, dir, patterns] of [
	['source (package.json, nodes/, credentials/)', source, SOURCE_FILE_PATTERNS],
	['tarball (compiled .js, published package.json)', tarball, ['**/*.js', 'package.json']],
]) {
	const result = await analyzePackage(dir, patterns);
	console.log(`${result.passed ? 'PASSED' : 'FAILED'}  ${name}${result.passed ? '' : `: ${result.message ?? ''}\n${result.details ?? ''}`}`);
	if (!result.passed) failed++;
}
process.exit(failed ? 1 : 0);
JS
node run.mjs "$repo" "$work/tarball/package"
