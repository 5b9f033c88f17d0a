/**
 * Numbers as the front ends show them: scores to three decimals, counts with separators, money
 * in dollars; and a word of a command a person is told to run, as a shell reads it back.
 */

/** A score to `digits` decimals, or an en dash for none. */
export function fmt(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined ? '–' : Number(v).toFixed(digits);
}

/** A difference with its sign. */
export function signedFmt(v: number | null | undefined, digits = 3): string {
  if (v === null || v === undefined) return '–';
  return (v >= 0 ? '+' : '') + v.toFixed(digits);
}

/** A count with thousands separators. */
export function int(v: number | null | undefined): string {
  return v === null || v === undefined ? '–' : Number(v).toLocaleString('en-US');
}

/** A mean with its 95% interval. */
export function est(e: { mean: number | null; ci95?: [number, number] | null } | null | undefined): string {
  if (!e || e.mean === null) return '–';
  return fmt(e.mean) + (e.ci95 ? ` [${fmt(e.ci95[0])}, ${fmt(e.ci95[1])}]` : '');
}

/** Dollars: four decimals under a dollar, two above. */
export function usd(v: number | null | undefined): string {
  return v === null || v === undefined ? '–' : `$${Number(v).toFixed(v < 1 ? 4 : 2)}`;
}

/** A word as a POSIX shell reads it back: bare when it has nothing the shell would act on, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
