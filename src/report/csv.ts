/**
 * The one CSV field writer of every CSV bas writes (`leaderboard --csv`, `sweep --csv`,
 * `gen --format csv`), so every CSV gets the same guard. A field is quoted when it holds a
 * comma, a quote or a line break (RFC 4180). Text a spreadsheet would take as a formula (it
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, so a model
 * name such as `-1+cmd|' /C calc'!A0` is shown, never run; a plain number (`-12.50`) is left as
 * it is, since a spreadsheet reads it as the number it is.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[-+]?\d+(\.\d+)?$/;

/** One CSV field: empty for null, undefined or a number that is not finite. */
export function csvField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  const s = FORMULA_START.test(v) && !PLAIN_NUMBER.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
