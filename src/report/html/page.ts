/**
 * The shell of a report page: one self-contained HTML document with inline CSS, charts as
 * inline SVG and, for a run, its data as JSON read by an inline script. Nothing is fetched.
 */
import { escapeHtml } from './escape.js';

/** The style of every page the app runs in: the report pages, a bundle, `bas view`. */
export const PAGE_CSS = `
:root { --ink: #1d2b3a; --muted: #5b6776; --line: #dde2e8; --bg: #f6f8fa; --accent: #3b7dd8;
  --ok: #1f8a4c; --ok-bg: #e6f5ec; --miss: #b26a00; --miss-bg: #fff3dc; --bad: #c0392b; --bad-bg: #fdeaea; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
header { background: #fff; border-bottom: 1px solid var(--line); padding: 18px 28px; }
h1 { margin: 0 0 6px; font-size: 22px; }
h2 { font-size: 17px; margin: 0 0 12px; }
h3 { font-size: 15px; margin: 16px 0 8px; }
main { padding: 20px 28px 40px; max-width: 1280px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin-bottom: 18px; }
.meta { color: var(--muted); display: flex; flex-wrap: wrap; gap: 4px 22px; }
.meta b { color: var(--ink); font-weight: 600; }
.note { background: var(--miss-bg); border: 1px solid #f0d9a8; border-radius: 6px; padding: 8px 12px; margin: 10px 0 0; }
.grid { display: flex; flex-wrap: wrap; gap: 18px 28px; align-items: flex-start; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { white-space: nowrap; padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: right; vertical-align: top; }
th { background: #f0f3f6; font-weight: 600; color: #334; }
th:first-child, td:first-child { text-align: left; }
td.text, th.text { text-align: left; }
td.wrap { white-space: normal; overflow-wrap: break-word; min-width: 6em; max-width: 28em; }
td.lines { white-space: pre; }
td.lines.wrap { white-space: pre-line; }
th { white-space: normal; }
.small { font-size: 12px; color: var(--muted); }
.controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-bottom: 10px; }
.controls input, .controls select, button { font: inherit; padding: 4px 8px; border: 1px solid #c3cad3; border-radius: 5px; background: #fff; }
button { cursor: pointer; }
button:hover { border-color: var(--accent); }
button:disabled { opacity: .45; cursor: default; }
#task-list tbody tr { cursor: pointer; }
#task-list tbody tr:hover { background: #eef4fc; }
#task-list tbody tr.selected { background: #dceaff; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; }
.badge.bas-right { background: var(--ok-bg); color: var(--ok); }
.badge.bas-wrong { background: var(--miss-bg); color: var(--miss); }
.badge.error, .badge.unparseable { background: var(--bad-bg); color: var(--bad); }
#drill:empty { display: none; }
.ledger td, .ledger th { font-size: 12.5px; padding: 3px 7px; white-space: nowrap; }
.ledger td.wrap { white-space: normal; min-width: 230px; }
.ledger td.desc { white-space: normal; min-width: 140px; }
.ledger tr.row-found td { background: var(--ok-bg); }
.ledger tr.row-missed td { background: var(--miss-bg); }
.ledger tr.row-wrong td { background: var(--bad-bg); }
.chip { white-space: nowrap; display: inline-block; margin: 1px 3px 1px 0; padding: 0 6px; border-radius: 4px; font-size: 11.5px; border: 1px solid; }
.chip.found { color: var(--ok); border-color: #9bd3b1; background: #fff; }
.chip.missed { color: var(--miss); border-color: #e6c17a; background: #fff; }
.chip.wrong { color: var(--bad); border-color: #e9a49b; background: #fff; }
.chip.expected { color: var(--muted); border-color: var(--line); background: #fff; }
.right { color: var(--ok); font-weight: 600; }
.wrongfig { color: var(--bad); font-weight: 600; }
pre.reply { background: #0f1720; color: #e6edf3; padding: 12px; border-radius: 6px; max-height: 420px; overflow: auto; white-space: pre-wrap; word-break: break-word; font-size: 12.5px; }
.legend span { margin-right: 14px; }
svg { max-width: 100%; height: auto; }
table.prov th, table.prov td { text-align: left; white-space: normal; border: 0; padding: 1px 12px 1px 0; background: none; font-weight: normal; }
table.prov th { color: var(--muted); }
table.prov td { color: var(--ink); font-weight: 600; }
header.bar { background: #20324a; color: #fff; padding: 8px 28px; display: flex; gap: 16px; align-items: baseline; }
header.bar a { color: #fff; font-weight: bold; text-decoration: none; }
#app h1 { overflow-wrap: anywhere; }
#app table, #drill table { background: #fff; }
pre { background: #fff; border: 1px solid var(--line); padding: 8px; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
th.sortable { cursor: pointer; user-select: none; }
td.num { text-align: right; }
.status-running { color: var(--ok); font-weight: bold; }
.status-interrupted, .status-failed, .status-damaged { color: var(--bad); font-weight: bold; }
.problem { color: var(--bad); }
.scroll { overflow-x: auto; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.side > div { min-width: 0; }
#diff-list tr.flipped td { background: var(--miss-bg); }
section.rollout { margin-top: 12px; }
`;

/**
 * A table of escaped text cells; the first column is left-aligned. `wrapCols` may wrap
 * (long names and folders, so a page never scrolls sideways); with `lineBreaks`, a line
 * break in a cell shows as one.
 */
export function htmlTable(
  head: string[],
  rows: string[][],
  opts: { id?: string; textCols?: number[]; wrapCols?: number[]; lineBreaks?: boolean } = {},
): string {
  const classes = (i: number, td: boolean) => {
    const c = [
      opts.textCols?.includes(i) ? 'text' : '',
      td && opts.wrapCols?.includes(i) ? 'wrap' : '',
      td && opts.lineBreaks ? 'lines' : '',
    ].filter(Boolean);
    return c.length ? ` class="${c.join(' ')}"` : '';
  };
  const th = head.map((h, i) => `<th${classes(i, false)}>${escapeHtml(h)}</th>`).join('');
  const cell = (c: string, i: number) => (opts.wrapCols?.includes(i) ? breakable(c) : escapeHtml(c));
  const body = rows
    .map((r) => `<tr>${r.map((c, i) => `<td${classes(i, true)}>${cell(c, i)}</td>`).join('')}</tr>`)
    .join('');
  return `<table${opts.id ? ` id="${opts.id}"` : ''}><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}

/**
 * Escaped text with a line-break opportunity after each separator of a name or path (`/`,
 * `:`, `-`, `_`, `.`, `·`, `,`): a wrapped cell breaks `builtin:blanket` after the colon,
 * never mid-word.
 */
function breakable(text: string): string {
  // Not inside a number: "0.538" and "−0.052" stay whole.
  return escapeHtml(text).replace(/([/:_·,]|&amp;|[.-](?!\d))(?=\S)/g, '$1<wbr>');
}

/** Labelled provenance lines (model, sampling, versions …) as a compact two-column table. */
export function provenanceTable(lines: Array<[string, string]>): string {
  const rows = lines.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('');
  return `<table class="prov">${rows}</table>`;
}

/** A whole page: `body` is trusted HTML built from escaped parts; `script` runs inline. */
export function page(opts: { title: string; header: string; body: string; script?: string; data?: string }): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // No network at all: the page may only use what it carries inline.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(opts.title)}</title>`,
    `<style>${PAGE_CSS}</style></head><body>`,
    `<header>${opts.header}</header>`,
    `<main>${opts.body}</main>`,
    opts.data !== undefined ? `<script type="application/json" id="bas-data">${opts.data}</script>` : '',
    opts.script ? `<script>${opts.script}</script>` : '',
    '</body></html>',
  ].join('\n');
}
