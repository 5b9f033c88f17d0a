/**
 * Small inline SVG charts drawn by hand: horizontal bars on a 0..1 scale with optional 95%
 * whiskers, and a histogram (a sweep's curves are in curves.ts). No library, no network; every
 * label is escaped.
 */
import { wrapCell } from '../fit-table.js';
import { escapeHtml } from './escape.js';

export interface Bar {
  label: string;
  /** 0..1, or null for "no data". */
  value: number | null;
  ci?: [number, number] | null;
  /** Text after the bar, e.g. "0.812 (n = 30)". */
  note?: string;
  /** Optional second series drawn thinner under the bar (say, precision beside recall). */
  value2?: number | null;
}

const FONT = 'font-family="system-ui, sans-serif" font-size="12"';

export function clamp01(v: number): number {
  return Math.min(1, Math.max(0, v));
}

/** A generous average width of one character at 12 px, so a label is never drawn past its room. */
export const CHAR_PX = 7.2;
/** Labels longer than this fold onto further lines (at a separator where one is near). */
const LABEL_CHARS = 40;

/** One bar: its label (lines already folded), the bar, the second value's thin bar, the whiskers and the note. */
function barRow(
  b: Bar,
  lines: string[],
  y: number,
  at: { labelW: number; plotW: number; lineH: number },
  opts: { legend?: [string, string] },
): string[] {
  const { labelW, plotW, lineH } = at;
  const x = (v: number) => labelW + clamp01(v) * plotW;
  const barH = opts.legend ? 14 : 16;
  const tspans = lines.map((l, k) => `<tspan x="${labelW - 8}" dy="${k === 0 ? 0 : lineH}">${escapeHtml(l)}</tspan>`);
  const parts = [`<text class="label" x="${labelW - 8}" y="${y + 12}" text-anchor="end">${tspans.join('')}</text>`];
  if (b.value !== null) {
    parts.push(
      `<rect class="bar" x="${labelW}" y="${y}" width="${(x(b.value) - labelW).toFixed(1)}" height="${barH}" fill="#3b7dd8" rx="2"/>`,
    );
  }
  if (b.value2 !== undefined && b.value2 !== null) {
    parts.push(
      `<rect x="${labelW}" y="${y + barH + 2}" width="${(x(b.value2) - labelW).toFixed(1)}" height="8" fill="#9cc1ef" rx="2"/>`,
    );
  }
  if (b.ci) {
    const [lo, hi] = [x(b.ci[0]), x(b.ci[1])];
    const cy = y + barH / 2;
    parts.push(
      `<g class="whisker" stroke="#1d2b3a" stroke-width="1.5"><line x1="${lo.toFixed(1)}" y1="${cy}" x2="${hi.toFixed(1)}" y2="${cy}"/><line x1="${lo.toFixed(1)}" y1="${cy - 5}" x2="${lo.toFixed(1)}" y2="${cy + 5}"/><line x1="${hi.toFixed(1)}" y1="${cy - 5}" x2="${hi.toFixed(1)}" y2="${cy + 5}"/></g>`,
    );
  }
  const note = b.note ?? (b.value === null ? 'no data' : b.value.toFixed(3));
  parts.push(`<text x="${labelW + plotW + 10}" y="${y + 12}" fill="#334">${escapeHtml(note)}</text>`);
  return parts;
}

/**
 * Horizontal bars on a 0..1 axis; whiskers show the interval where given. The label column
 * is as wide as the longest label line needs, and long labels fold rather than being cut,
 * so two runs whose names differ only at the end stay told apart.
 */
export function barChart(bars: Bar[], opts: { title: string; legend?: [string, string] }): string {
  const labels = bars.map((b) => wrapCell(b.label, LABEL_CHARS).split('\n'));
  const longest = Math.max(4, ...labels.flat().map((l) => [...l].length));
  const labelW = Math.ceil(longest * CHAR_PX) + 16;
  const plotW = 360;
  const noteW = 190;
  const lineH = 14;
  const rowHs = labels.map((ls) => Math.max(opts.legend ? 34 : 26, ls.length * lineH + 8));
  const rowTop = rowHs.map((_, i) => rowHs.slice(0, i).reduce((a, b) => a + b, 0));
  const top = 28;
  const width = Math.max(labelW + plotW + noteW, Math.ceil([...opts.title].length * CHAR_PX * 1.1));
  const height = top + rowHs.reduce((a, b) => a + b, 0) + 26;
  const x = (v: number) => labelW + clamp01(v) * plotW;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(opts.title)}" ${FONT}>`,
  );
  parts.push(`<text x="0" y="16" font-weight="600" font-size="13">${escapeHtml(opts.title)}</text>`);
  for (let t = 0; t <= 4; t++) {
    const gx = x(t / 4);
    parts.push(`<line x1="${gx}" y1="${top - 4}" x2="${gx}" y2="${height - 22}" stroke="#e3e6ea"/>`);
    parts.push(`<text x="${gx}" y="${height - 8}" text-anchor="middle" fill="#667">${(t / 4).toFixed(2)}</text>`);
  }
  bars.forEach((b, i) => parts.push(...barRow(b, labels[i]!, top + rowTop[i]!, { labelW, plotW, lineH }, opts)));
  if (opts.legend) {
    const ly = 8;
    parts.push(
      `<rect x="${width - 230}" y="${ly}" width="12" height="10" fill="#3b7dd8"/><text x="${width - 214}" y="${ly + 9}">${escapeHtml(opts.legend[0])}</text>`,
    );
    parts.push(
      `<rect x="${width - 120}" y="${ly + 2}" width="12" height="6" fill="#9cc1ef"/><text x="${width - 104}" y="${ly + 9}">${escapeHtml(opts.legend[1])}</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}

/** Vertical bars, one per bin, heights scaled to the largest count. */
export function histogramChart(bins: Array<{ lo: number; hi: number; count: number }>, title: string): string {
  const width = 560;
  const height = 220;
  const left = 44;
  const bottom = 34;
  const top = 28;
  const plotH = height - top - bottom;
  const bw = (width - left - 10) / Math.max(1, bins.length);
  const max = Math.max(1, ...bins.map((b) => b.count));
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(title)}" ${FONT}>`,
  ];
  parts.push(`<text x="0" y="16" font-weight="600" font-size="13">${escapeHtml(title)}</text>`);
  parts.push(`<line x1="${left}" y1="${top + plotH}" x2="${width - 10}" y2="${top + plotH}" stroke="#99a"/>`);
  parts.push(
    `<text x="${left - 6}" y="${top + 10}" text-anchor="end" fill="#667">${max}</text><text x="${left - 6}" y="${top + plotH}" text-anchor="end" fill="#667">0</text>`,
  );
  bins.forEach((b, i) => {
    const h = (b.count / max) * plotH;
    const bx = left + i * bw;
    parts.push(
      `<rect class="bar" x="${(bx + 2).toFixed(1)}" y="${(top + plotH - h).toFixed(1)}" width="${(bw - 4).toFixed(1)}" height="${h.toFixed(1)}" fill="#3b7dd8" rx="2"><title>${b.lo.toFixed(1)}–${b.hi.toFixed(1)}: ${b.count}</title></rect>`,
    );
    if (b.count)
      parts.push(
        `<text x="${(bx + bw / 2).toFixed(1)}" y="${(top + plotH - h - 4).toFixed(1)}" text-anchor="middle" fill="#334" font-size="11">${b.count}</text>`,
      );
    parts.push(
      `<text x="${(bx + bw / 2).toFixed(1)}" y="${height - bottom + 16}" text-anchor="middle" fill="#667" font-size="11">${b.lo.toFixed(1)}</text>`,
    );
  });
  parts.push(
    `<text x="${width - 10}" y="${height - 4}" text-anchor="end" fill="#667" font-size="11">reward (bin start)</text>`,
  );
  parts.push('</svg>');
  return parts.join('');
}
