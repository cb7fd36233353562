/**
 * The package's fallback lines (nodes/shared/reliance.ts): a warning, once per n8n process, that
 * n8n no longer offers an internal the package relies on (docs/ARCHITECTURE.md, "What we rely on in
 * n8n"). On the n8n versions the suite runs none may appear: each `n8n execute` output and each
 * trigger server's output is searched (scripts/e2e.ts, trigger-server.ts).
 */
import { FALLBACK_MARK } from '../../nodes/shared/reliance';

export { FALLBACK_MARK };

/** The lines of n8n's output that report a fallback. */
export function fallbackLines(output: string): string[] {
	return output.split('\n').filter((line) => line.includes(FALLBACK_MARK));
}

/** Throws when n8n's output holds a fallback line (`where` names the process). */
export function assertNoFallback(output: string, where: string): void {
	const lines = fallbackLines(output);
	if (lines.length) throw new Error(`${where} logged ${lines.length} fallback line(s) of the package:\n${lines.join('\n')}`);
}
