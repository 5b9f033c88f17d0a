/**
 * GET /api/diff?a=ID&b=ID: the rollouts two runs share, those whose outcome flipped first
 * (display/diff.ts, the same code a comparison's page embeds), from each run's rollout index as
 * the catalog keeps it: its rows are the ones a read of the records gives
 * (tests/report/list-rows.test.ts), so a run already opened is not read again, and one not
 * opened yet is read once, for its index and its summary together. Everything from the files is
 * made terminal-safe, as every answer of the API.
 */
import { DIFF_ROWS, DiffTally, diffRuns, tasksDiffer, type DiffAnswer } from '../display/diff.js';
import { RequestError } from '../errors/index.js';
import { terminalText } from '../io/terminal-text.js';
import type { RolloutIndex } from '../runfile/rollout-index.js';
import { runOf } from './api.js';
import type { Catalog } from './catalog.js';
import type { RunState } from './run-state.js';

/** The run's index with its whole file read; a 409 when the file cannot be read or has a damaged line (named). */
async function indexOf(run: RunState): Promise<RolloutIndex> {
  const refuse = (why: string) => new RequestError(409, `cannot read ${terminalText(run.id)}: ${terminalText(why)}`);
  let index: RolloutIndex;
  try {
    index = await run.wholeIndex();
  } catch (err) {
    throw refuse((err as Error).message);
  }
  const d = index.damage[0];
  if (d !== undefined) throw refuse(`${index.path}: line ${d.line} ${d.reason}`);
  return index;
}

/**
 * The diff of the runs of indexes `a` and `b`: each of B's rollouts paired with A's by the
 * index's own lookup, one row of each made at a time (no run's rows are held whole).
 */
function diffIndexes(ids: [string, string], a: RolloutIndex, b: RolloutIndex): DiffAnswer {
  const tally = new DiffTally(DIFF_ROWS);
  for (const s of b.select({})) {
    const r = b.row(s);
    const t = a.slotOf(r.index, r.rollout);
    if (t >= 0) tally.add(a.row(t), r);
  }
  return tally.answer(ids, a.rollouts, b.rollouts);
}

/** The diff of run `b` against run `a`. */
export async function diffAnswer(catalog: Catalog, q: URLSearchParams): Promise<DiffAnswer> {
  const a = await runOf(catalog, q, 'a');
  const b = await runOf(catalog, q, 'b');
  if (a.id === b.id) throw new RequestError(400, 'name two different runs to diff');
  const refused = tasksDiffer(a.info?.task, b.info?.task);
  const ids: [string, string] = [a.id, b.id];
  const d =
    refused !== null ? diffRuns(ids, [], [], DIFF_ROWS, refused) : diffIndexes(ids, await indexOf(a), await indexOf(b));
  catalog.keepFew();
  return { ...d, a: terminalText(d.a), b: terminalText(d.b) };
}
