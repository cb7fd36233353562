import { matchPath } from './log';
import { BodyPace, FaultRule, FaultsApi, InterfaceName } from './types';

export interface ActiveFault extends FaultRule {
	id: string;
	remaining: number;
}

/** Whether the rule answers (instead of only delaying). */
export function faultAnswers(rule: FaultRule): boolean {
	return !!rule.reset || !!rule.stall || rule.status !== undefined || rule.body !== undefined;
}

/** Whether the rule is applied after the request body was read (see README for defaults). */
export function faultAfterBody(rule: FaultRule): boolean {
	if (rule.afterHandler) return true;
	if (rule.afterBody !== undefined) return rule.afterBody;
	if (rule.reset) return false;
	return !!rule.stall || rule.status !== undefined || rule.body !== undefined;
}

function checkPace(side: string, pace: BodyPace | undefined): void {
	if (pace === undefined) return;
	if (pace.chunkBytes !== undefined && !(Number.isInteger(pace.chunkBytes) && pace.chunkBytes > 0)) throw new Error(`fault rule \`${side}.chunkBytes\` must be a whole number > 0`);
	if (pace.delayMs !== undefined && !(pace.delayMs >= 0)) throw new Error(`fault rule \`${side}.delayMs\` must be >= 0`);
	if (pace.stallAfterBytes !== undefined && !(Number.isInteger(pace.stallAfterBytes) && pace.stallAfterBytes >= 0)) throw new Error(`fault rule \`${side}.stallAfterBytes\` must be a whole number >= 0`);
}

export class FaultRegistry implements FaultsApi {
	private rules: ActiveFault[] = [];
	private nextId = 1;

	add(rule: FaultRule): string {
		const id = `fault-${this.nextId++}`;
		const times = rule.times === undefined || rule.times === null ? 1 : Number(rule.times);
		if (!(times > 0)) throw new Error('fault rule `times` must be > 0');
		if (rule.status !== undefined && !(Number.isInteger(rule.status) && rule.status >= 100 && rule.status <= 599)) throw new Error('fault rule `status` must be an HTTP status');
		for (const side of ['responseBody', 'requestBody'] as const) checkPace(side, rule[side]);
		this.rules.push({ ...rule, id, remaining: times });
		return id;
	}

	clear(): void {
		this.rules = [];
	}

	remove(id: string): boolean {
		const before = this.rules.length;
		this.rules = this.rules.filter((r) => r.id !== id);
		return this.rules.length !== before;
	}

	list(): Array<FaultRule & { id: string; remaining: number }> {
		return this.rules.map((r) => ({ ...r }));
	}

	/** First matching rule (in insertion order); counts it down and drops it when used up. */
	take(method: string, path: string, iface: InterfaceName): ActiveFault | undefined {
		for (const r of this.rules) {
			if (r.method && r.method.toUpperCase() !== method) continue;
			if (r.interface && r.interface !== iface) continue;
			if (!matchPath(r.path, path)) continue;
			r.remaining--;
			if (r.remaining <= 0) this.rules = this.rules.filter((x) => x !== r);
			return { ...r };
		}
		return undefined;
	}
}
