/**
 * Where the app's data comes from. One interface, two sources: `bas view`'s JSON API
 * (ApiSource, below) and the JSON a page or a bundle carries (embedded.ts), which holds the
 * same answers. The views ask a source and never know which one they have.
 */
import type { RolloutDetail } from '../display/drill.js';
import {
  apiParams,
  keepRow,
  listRowOf,
  PAGE_ROWS,
  SHOW,
  type ListQuery,
  type ListRow,
  type Show,
} from '../display/list.js';
import type { Pair } from '../display/route.js';
import type {
  CompareAnswer,
  LeaderboardAnswer,
  ProgressAnswer,
  RolloutsAnswer,
  RunAnswer,
  RunsAnswer,
  SweepAnswer,
} from './answers.js';
import type { DiffAnswer } from '../display/diff.js';

export interface Source {
  /** True when the data can change (a live server): the views ask again while a run is running. */
  readonly live: boolean;
  /** The outcomes the list can be filtered by, and whether it can be sorted by reward. */
  readonly shows: readonly Show[];
  readonly sorts: boolean;
  /** Whether the list's rows say why the page holds them (a report page's bounded selection). */
  readonly why: boolean;
  /** True when every run listed has a page here (bas view, a bundle), not only one page's data. */
  readonly pages: boolean;
  runs(): Promise<RunsAnswer>;
  run(id: string): Promise<RunAnswer>;
  progress(id: string): Promise<ProgressAnswer>;
  rollouts(id: string, q: ListQuery): Promise<RolloutsAnswer>;
  rollout(id: string, p: Pair): Promise<RolloutDetail>;
  compare(a: string, b: string): Promise<CompareAnswer>;
  diff(a: string, b: string): Promise<DiffAnswer>;
  sweep(id: string): Promise<SweepAnswer>;
  leaderboard(): Promise<LeaderboardAnswer>;
}

/** An answer the source refused, with its status (404: none such; 409: not ready yet, ask again). */
export type Refusal = Error & { status: number };

export function refusal(message: string, status: number): Refusal {
  return Object.assign(new Error(message), { status });
}

/** The status of a refusal; 0 for any other error. */
export const statusOf = (err: unknown): number =>
  err instanceof Error && typeof (err as Partial<Refusal>).status === 'number' ? (err as Refusal).status : 0;

/** Tasks' rollouts looked up one by one when the list is narrowed to one task (the API has no such filter). */
const MAX_TASK_ROLLOUTS = 64;

/** `bas view`'s API on the page's own origin, with the page's token when it was opened with one. */
export class ApiSource implements Source {
  readonly live = true;
  readonly pages = true;
  readonly shows: readonly Show[] = SHOW;
  readonly sorts = false;
  readonly why = false;
  constructor(private readonly token: string | null) {}

  private async get<T>(path: string, params: Record<string, string | number> = {}): Promise<T> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== '') q.set(k, String(v));
    const headers: Record<string, string> = this.token ? { Authorization: `Bearer ${this.token}` } : {};
    const r = await fetch(`/api/${path}${q.toString() ? `?${q.toString()}` : ''}`, { headers });
    const body = (await r.json()) as { error?: { message?: string } };
    if (!r.ok) throw refusal(body?.error?.message ?? `HTTP ${r.status}`, r.status);
    return body as T;
  }

  runs = (): Promise<RunsAnswer> => this.get('runs');
  run = (id: string): Promise<RunAnswer> => this.get('run', { run: id });
  progress = (id: string): Promise<ProgressAnswer> => this.get('progress', { run: id });
  rollout = (id: string, p: Pair): Promise<RolloutDetail> =>
    this.get('rollout', { run: id, index: p.index, rollout: p.rollout });
  compare = (a: string, b: string): Promise<CompareAnswer> => this.get('compare', { a, b });
  diff = (a: string, b: string): Promise<DiffAnswer> => this.get('diff', { a, b });
  sweep = (id: string): Promise<SweepAnswer> => this.get('sweep', { sweep: id });
  leaderboard = (): Promise<LeaderboardAnswer> => this.get('leaderboard');

  async rollouts(id: string, q: ListQuery): Promise<RolloutsAnswer> {
    const params = apiParams({ ...q, task: '', sort: 'index' });
    if (q.task.trim() !== '' && /^\d+$/.test(q.task.trim())) return this.taskRollouts(id, q, Number(q.task));
    return this.get('rollouts', { run: id, ...(params ?? {}), offset: q.page * PAGE_ROWS, limit: PAGE_ROWS });
  }

  /** The rollouts of one task, asked one by one until the run has no more. */
  private async taskRollouts(id: string, q: ListQuery, index: number): Promise<RolloutsAnswer> {
    const rows: ListRow[] = [];
    for (let r = 0; r < MAX_TASK_ROLLOUTS; r++) {
      try {
        rows.push(listRowOf(await this.rollout(id, { index, rollout: r })));
      } catch (err) {
        if (statusOf(err) === 404) break;
        throw err;
      }
    }
    const kept = rows.filter((row) => keepRow(q, row));
    return { total: rows.length, matching: kept.length, offset: 0, rows: kept, index: null };
  }
}
