/**
 * The data a page or a bundle carries, answering as `bas view`'s API would: the list filtered,
 * sorted and paged here (display/list.ts), a rollout from the embedded drill-down data, and
 * the run, comparison and sweep answers as the server wrote them.
 */
import { rolloutDetail, type RolloutDetail } from '../display/drill.js';
import { keepRow, listRowOf, PAGE_ROWS, SHOW, sortRows, type ListQuery, type ListRow } from '../display/list.js';
import { compareKey, type PageData } from '../display/page-data.js';
import { pairText, type Pair } from '../display/route.js';
import { DIFF_ROWS, diffRuns, tasksDiffer, type DiffAnswer } from '../display/diff.js';
import { shellWord } from '../display/format.js';
import {
  progressOf,
  type CompareAnswer,
  type LeaderboardAnswer,
  type ProgressAnswer,
  type RolloutsAnswer,
  type RunAnswer,
  type RunsAnswer,
  type SweepAnswer,
} from './answers.js';
import { refusal, type Source } from './source.js';

interface Held {
  details: RolloutDetail[];
  rows: ListRow[];
  byPair: Map<string, RolloutDetail>;
}

export class EmbeddedSource implements Source {
  readonly live = false;
  readonly pages: boolean;
  readonly shows = SHOW;
  readonly sorts = true;
  readonly why: boolean;
  private readonly held = new Map<string, Held>();

  constructor(readonly data: PageData) {
    this.why = data.kind === 'run';
    this.pages = data.kind === 'bundle';
  }

  /** A run's rollouts as details and list rows, built the first time they are asked for. */
  private runOf(id: string): Held {
    let h = this.held.get(id);
    if (h) return h;
    const run = Object.hasOwn(this.data.runs, id) ? this.data.runs[id] : undefined;
    if (run === undefined) throw refusal(`this page holds no run ${JSON.stringify(id)}`, 404);
    // A bundle holds its runs' tasks once, for all of them.
    if (this.data.pool) Object.assign(run.drill, { tasks: this.data.pool.tasks, strings: this.data.pool.strings });
    const details = run.drill.rollouts.map((x) => rolloutDetail(run.drill, x));
    for (const d of details) d.max_reply_chars = run.drill.maxReplyChars;
    h = { details, rows: details.map(listRowOf), byPair: new Map(details.map((d) => [pairText(d), d])) };
    this.held.set(id, h);
    return h;
  }

  private answer<T>(value: unknown, what: string): Promise<T> {
    if (value === undefined || value === null) return Promise.reject(refusal(`this page holds no ${what}`, 404));
    return Promise.resolve(value as T);
  }

  runs = (): Promise<RunsAnswer> => this.answer(this.data.list, 'list of runs');
  run = (id: string): Promise<RunAnswer> =>
    this.answer(Object.hasOwn(this.data.runs, id) ? this.data.runs[id]!.run : undefined, `report of ${id}`);

  async progress(id: string): Promise<ProgressAnswer> {
    return progressOf(await this.run(id));
  }

  async rollouts(id: string, q: ListQuery): Promise<RolloutsAnswer> {
    const h = this.runOf(id);
    const rows = sortRows(
      h.rows.filter((r) => keepRow(q, r)),
      q.sort,
    );
    const offset = Math.min(q.page, Math.max(0, Math.ceil(rows.length / PAGE_ROWS) - 1)) * PAGE_ROWS;
    const all = this.data.runs[id]!.drill.total_rollouts;
    return {
      // A bundle's run past its bound holds a selection: the list says of how many.
      ...(this.data.kind === 'bundle' && all > h.rows.length ? { held_of: all } : {}),
      total: h.rows.length,
      matching: rows.length,
      offset,
      rows: rows.slice(offset, offset + PAGE_ROWS),
      index: null,
    };
  }

  async rollout(id: string, p: Pair): Promise<RolloutDetail> {
    const pair = pairText(p);
    const d = this.runOf(id).byPair.get(pair);
    if (d !== undefined) return d;
    const dir = this.data.runs[id]!.drill.dir;
    throw refusal(
      `this page does not hold rollout ${pair}: bas report ${shellWord(dir)} --rollout ${pair} prints it`,
      404,
    );
  }

  private pair(a: string, b: string) {
    const k = compareKey(a, b);
    return this.data.compares && Object.hasOwn(this.data.compares, k) ? this.data.compares[k] : undefined;
  }

  compare = (a: string, b: string): Promise<CompareAnswer> =>
    this.answer(this.pair(a, b)?.compare, `paired figures of ${a} and ${b} (bas compare ${a} ${b} prints them)`);
  /** The diff the page holds, else (a bundle holds every rollout of both) computed from the rows. */
  async diff(a: string, b: string): Promise<DiffAnswer> {
    const held = this.pair(a, b)?.diff;
    if (held) return held;
    const taskOf = (id: string) => (this.data.runs[id]?.run as RunAnswer | undefined)?.report?.run?.task;
    const refused = tasksDiffer(taskOf(a), taskOf(b));
    return diffRuns([a, b], this.runOf(a).rows, this.runOf(b).rows, DIFF_ROWS, refused);
  }
  sweep = (id: string): Promise<SweepAnswer> =>
    this.answer(
      this.data.sweeps && Object.hasOwn(this.data.sweeps, id) ? this.data.sweeps[id] : undefined,
      `sweep ${id}`,
    );
  leaderboard = (): Promise<LeaderboardAnswer> => this.answer(this.data.leaderboard, 'leaderboard');
}
