/**
 * The HTML page of `bas sweep`: reward, `bas_correct` and `fault_audit` against ledger rows,
 * each point with its 95% interval, one chart per fault rate, and the table of points.
 */
import { SWEEP_MEASURES, type SweepPoint, type SweepResult } from '../sweep.js';
import { fmt, fmtCi, fmtInt } from '../tables.js';
import { escapeHtml } from './escape.js';
import { htmlTable, page } from './page.js';

const COLOURS: Record<(typeof SWEEP_MEASURES)[number], string> = {
  reward: '#3b7dd8',
  bas_correct: '#1f8a4c',
  fault_audit: '#b26a00',
};

/**
 * Lines with whiskers on a 0..1 axis against rows; the rows axis is logarithmic when the
 * points span a factor of four or more (12 to 240 rows is the usual sweep).
 */
function sweepChart(points: SweepPoint[], title: string): string {
  const [w, h, left, right, top, bottom] = [720, 340, 48, 130, 30, 44];
  const rows = points.map((p) => p.num_transactions);
  const [lo, hi] = [Math.min(...rows), Math.max(...rows)];
  const log = hi / lo >= 4;
  const fx = (v: number) => (hi === lo ? 0.5 : log ? Math.log(v / lo) / Math.log(hi / lo) : (v - lo) / (hi - lo));
  const x = (v: number) => left + fx(v) * (w - left - right);
  const y = (v: number) => top + (1 - Math.min(1, Math.max(0, v))) * (h - top - bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${escapeHtml(title)}" font-family="system-ui, sans-serif" font-size="12">`,
  ];
  parts.push(`<text x="0" y="16" font-weight="600" font-size="13">${escapeHtml(title)}</text>`);
  for (let t = 0; t <= 4; t++) {
    const gy = y(t / 4);
    parts.push(
      `<line x1="${left}" y1="${gy}" x2="${w - right}" y2="${gy}" stroke="#e3e6ea"/><text x="${left - 6}" y="${gy + 4}" text-anchor="end" fill="#667">${(t / 4).toFixed(2)}</text>`,
    );
  }
  for (const r of new Set(rows)) {
    parts.push(`<text x="${x(r).toFixed(1)}" y="${h - bottom + 16}" text-anchor="middle" fill="#667">${r}</text>`);
  }
  parts.push(
    `<text x="${(left + w - right) / 2}" y="${h - 6}" text-anchor="middle" fill="#667">rows per ledger${log ? ' (log scale)' : ''}</text>`,
  );
  SWEEP_MEASURES.forEach((m, k) => {
    const c = COLOURS[m];
    const pts = points.filter((p) => p.measures[m].mean !== null);
    // Offset each series a little sideways so whiskers of equal points do not hide each other.
    const dx = (k - 1) * 5;
    if (pts.length > 1)
      parts.push(
        `<polyline class="series" fill="none" stroke="${c}" stroke-width="2" points="${pts.map((p) => `${(x(p.num_transactions) + dx).toFixed(1)},${y(p.measures[m].mean!).toFixed(1)}`).join(' ')}"/>`,
      );
    for (const p of pts) {
      const e = p.measures[m];
      const px = x(p.num_transactions) + dx;
      if (e.ci95)
        parts.push(
          `<line class="whisker" x1="${px.toFixed(1)}" y1="${y(e.ci95[0]).toFixed(1)}" x2="${px.toFixed(1)}" y2="${y(e.ci95[1]).toFixed(1)}" stroke="${c}" stroke-width="1.5"/>`,
        );
      parts.push(
        `<circle cx="${px.toFixed(1)}" cy="${y(e.mean!).toFixed(1)}" r="3.5" fill="${c}"><title>${escapeHtml(`${m} at ${p.num_transactions} rows: ${fmt(e.mean)} ${fmtCi(e.ci95)}`)}</title></circle>`,
      );
    }
    parts.push(
      `<rect x="${w - right + 14}" y="${top + 8 + k * 20}" width="12" height="4" fill="${c}"/><text x="${w - right + 32}" y="${top + 14 + k * 20}">${m}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

/** The whole page for `bas sweep --html`. */
export function sweepPage(r: SweepResult): string {
  const title = `bas sweep: ${r.model}`;
  const rates = [...new Set(r.points.map((p) => p.fault_rate))];
  const charts = rates
    .map((rate) =>
      sweepChart(
        r.points.filter((p) => p.fault_rate === rate),
        `means with 95% intervals${rate === null ? '' : `, fault rate ${rate}`}`,
      ),
    )
    .map((svg) => `<div>${svg}</div>`)
    .join('');
  const table = htmlTable(
    ['rows', 'fault rate', 'reward', 'bas_correct', 'fault_audit', 'completed', 'errored', 'folder'],
    r.points.map((p) => [
      String(p.num_transactions),
      p.fault_rate === null ? '–' : String(p.fault_rate),
      ...SWEEP_MEASURES.map((m) => `${fmt(p.measures[m].mean)}\n${fmtCi(p.measures[m].ci95, 2)}`),
      fmtInt(p.completed),
      fmtInt(p.errored),
      p.dir,
    ]),
    { textCols: [7], wrapCols: [7], lineBreaks: true },
  );
  const body = `<section><h2>Difficulty curve</h2><div class="grid">${charts}</div></section><section><h2>Points</h2>${table}</section>`;
  const header = `<h1>${escapeHtml(title)}</h1><div class="meta"><span>folder <b>${escapeHtml(r.dir)}</b></span><span>points <b>${r.points.length}</b></span></div>`;
  return page({ title, header, body });
}
