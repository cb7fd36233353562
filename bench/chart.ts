/** A small SVG line chart for the bench report (no dependencies). */

export interface Series {
	name: string;
	color: string;
	/** [x, y] points in data units. */
	points: Array<[number, number]>;
	dashed?: boolean;
}

export interface ChartSpec {
	title: string;
	xLabel: string;
	yLabel: string;
	series: Series[];
	/** Horizontal reference lines, e.g. the platform's rate limit. */
	lines?: Array<{ y: number; label: string; color: string }>;
}

const W = 820;
const H = 360;
const M = { left: 60, right: 230, top: 40, bottom: 50 };

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A "nice" step for about `count` ticks over `span`. */
function tickStep(span: number, count: number): number {
	const raw = span / count;
	const power = 10 ** Math.floor(Math.log10(raw));
	return [1, 2, 5, 10].map((f) => f * power).find((s) => s >= raw) ?? power * 10;
}

export function lineChart(spec: ChartSpec): string {
	const xs = spec.series.flatMap((s) => s.points.map(([x]) => x));
	const ys = [...spec.series.flatMap((s) => s.points.map(([, y]) => y)), ...(spec.lines ?? []).map((l) => l.y)];
	const xMax = Math.max(1, ...xs);
	const yMax = Math.max(1, ...ys) * 1.1;
	const px = (x: number) => M.left + (x / xMax) * (W - M.left - M.right);
	const py = (y: number) => H - M.bottom - (y / yMax) * (H - M.top - M.bottom);
	const out: string[] = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
		`<rect width="${W}" height="${H}" fill="white"/>`,
		`<text x="${W / 2 - M.right / 2}" y="22" text-anchor="middle" font-size="14">${escape(spec.title)}</text>`,
	];
	const xStep = tickStep(xMax, 10);
	for (let x = 0; x <= xMax + 1e-9; x += xStep) {
		out.push(`<line x1="${px(x)}" y1="${py(0)}" x2="${px(x)}" y2="${M.top}" stroke="#eee"/>`);
		out.push(`<text x="${px(x)}" y="${py(0) + 16}" text-anchor="middle">${Number(x.toFixed(2))}</text>`);
	}
	const yStep = tickStep(yMax, 6);
	for (let y = 0; y <= yMax + 1e-9; y += yStep) {
		out.push(`<line x1="${px(0)}" y1="${py(y)}" x2="${px(xMax)}" y2="${py(y)}" stroke="#eee"/>`);
		out.push(`<text x="${px(0) - 6}" y="${py(y) + 4}" text-anchor="end">${Number(y.toFixed(2))}</text>`);
	}
	out.push(`<line x1="${px(0)}" y1="${py(0)}" x2="${px(xMax)}" y2="${py(0)}" stroke="#333"/>`);
	out.push(`<line x1="${px(0)}" y1="${py(0)}" x2="${px(0)}" y2="${M.top}" stroke="#333"/>`);
	out.push(`<text x="${(px(0) + px(xMax)) / 2}" y="${H - 12}" text-anchor="middle">${escape(spec.xLabel)}</text>`);
	out.push(`<text x="16" y="${(py(0) + M.top) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(py(0) + M.top) / 2})">${escape(spec.yLabel)}</text>`);
	let legendY = M.top + 10;
	for (const l of spec.lines ?? []) {
		out.push(`<line x1="${px(0)}" y1="${py(l.y)}" x2="${px(xMax)}" y2="${py(l.y)}" stroke="${l.color}" stroke-dasharray="6 4"/>`);
		out.push(`<line x1="${W - M.right + 12}" y1="${legendY}" x2="${W - M.right + 36}" y2="${legendY}" stroke="${l.color}" stroke-dasharray="6 4"/>`);
		out.push(`<text x="${W - M.right + 42}" y="${legendY + 4}">${escape(l.label)}</text>`);
		legendY += 20;
	}
	for (const s of spec.series) {
		const d = s.points.map(([x, y], i) => `${i ? 'L' : 'M'}${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
		out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="3 3"' : ''}/>`);
		out.push(`<line x1="${W - M.right + 12}" y1="${legendY}" x2="${W - M.right + 36}" y2="${legendY}" stroke="${s.color}" stroke-width="2"/>`);
		out.push(`<text x="${W - M.right + 42}" y="${legendY + 4}">${escape(s.name)}</text>`);
		legendY += 20;
	}
	out.push('</svg>');
	return `${out.join('\n')}\n`;
}
