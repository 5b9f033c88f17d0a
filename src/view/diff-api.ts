/**
 * GET /api/diff?a=ID&b=ID: the rollouts two runs share, those whose outcome flipped first
 * (display/diff.ts, the same code a comparison's page embeds), from one read of each run's
 * results file. Everything from the files is made terminal-safe, as every answer of the API.
 */
import { DIFF_ROWS, diffRuns, tasksDiffer, type DiffAnswer } from '../display/diff.js';
import { RequestError } from '../errors/index.js';
import { terminalText } from '../io/terminal-text.js';
import { readListRows } from '../report/list-rows.js';
import { resultsPath } from '../runfile/files.js';
import { runOf } from './api.js';
import type { Catalog, RunState } from './catalog.js';

async function rowsOf(run: RunState) {
  try {
    return await readListRows(resultsPath(run.dir), run.info);
  } catch (err) {
    throw new RequestError(409, `cannot read ${terminalText(run.id)}: ${terminalText((err as Error).message)}`);
  }
}

/** The diff of run `b` against run `a`. */
export async function diffAnswer(catalog: Catalog, q: URLSearchParams): Promise<DiffAnswer> {
  const a = await runOf(catalog, q, 'a');
  const b = await runOf(catalog, q, 'b');
  if (a.id === b.id) throw new RequestError(400, 'name two different runs to diff');
  const refused = tasksDiffer(a.info?.task, b.info?.task);
  const d = diffRuns([a.id, b.id], refused ? [] : await rowsOf(a), refused ? [] : await rowsOf(b), DIFF_ROWS, refused);
  return { ...d, a: terminalText(d.a), b: terminalText(d.b) };
}
