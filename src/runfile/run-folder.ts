/**
 * A run folder held by the eval that writes it, and the changes of its status: `running`
 * when a session begins, then `complete`, `interrupted` or `failed` when it ends, and the
 * repair of a run whose every rollout was recorded but whose run.json never said so. A
 * folder whose earlier run failed at its start (nothing scored) is started again here too.
 * The engine decides which status a run ends in; this module is the one place that writes it,
 * with the session's times (sessions.ts), so every run.json tells how long its run took.
 */
import { FolderLock } from './lock.js';
import type { RolloutRecord } from './record.js';
import { ResultStore } from './results.js';
import { writeRunInfo, type RunInfo } from './run-info.js';
import { runTime, sessionsOf, type PaceRecord, type RunSession, type SessionSpend } from './sessions.js';

/**
 * How a session ended, as run.json records it: `budget` when the next request would not
 * have fitted in --max-cost / --max-total-tokens, `precision` when --precision was reached,
 * `stopped` when another stopping rule ended it (docs/run-folder.md).
 */
export type EndStatus = 'complete' | 'interrupted' | 'failed' | 'budget' | 'precision' | 'decided';

/** An open run folder: locked for this process until `release()`. */
export class RunFolder {
  private info: RunInfo | null = null;
  private session: RunSession | null = null;

  private constructor(
    readonly dir: string,
    private readonly store: ResultStore,
    /** run.json as it was when a resume took the folder; null for a new run. */
    private readonly saved: RunInfo | null,
    /** The folder held a run that scored nothing, which is being started again from scratch. */
    readonly restarted: boolean,
  ) {}

  /**
   * Takes a folder for a new run: a new or empty one, or one whose run recorded no scored
   * rollout (a failed start), which is started again. A folder holding a run is refused.
   */
  static async start(dir: string): Promise<RunFolder> {
    const { store, restarted } = await ResultStore.start(dir);
    return new RunFolder(dir, store, null, restarted);
  }

  /** Takes the folder of `saved` to continue it; a torn last line is cut first. */
  static resume(dir: string, saved: RunInfo): RunFolder {
    return new RunFolder(dir, ResultStore.reopen(dir), saved, false);
  }

  /**
   * `running`: writes run.json for a session starting `now`. `fresh` is the run.json the
   * settings make; on a resume it goes over the saved one, which keeps its first start and
   * its earlier sessions.
   */
  begin(fresh: RunInfo, now = new Date()): RunInfo {
    const at = now.toISOString();
    const s = this.saved;
    this.session = { started_at: at, ended_at: null, rollouts: 0 };
    const before = s ? sessionsOf(s) : [];
    this.info = {
      ...(s ?? {}),
      ...fresh,
      started_at: s?.started_at ?? at,
      ...(s ? { resumed_at: [...(Array.isArray(s.resumed_at) ? s.resumed_at : []), at] } : {}),
      sessions: [...before, this.session],
      elapsed_s: runTime(before).elapsed_s,
      status: 'running',
      ended_at: null,
      summary: null,
    };
    writeRunInfo(this.dir, this.info);
    return this.info;
  }

  /**
   * Rewrites run.json with `fields` over it while the session runs (a batch run's ids and
   * statuses, recorded before anything else can go wrong); the queued records are written first.
   */
  note(fields: Record<string, unknown>): RunInfo {
    if (!this.info) throw new Error('RunFolder.note() before begin()');
    this.store.flush();
    this.info = { ...this.info, ...fields };
    writeRunInfo(this.dir, this.info);
    return this.info;
  }

  /** Appends one finished rollout to results.jsonl. */
  append(record: RolloutRecord): void {
    this.store.append(record);
    if (this.session) this.session.rollouts!++;
  }

  /**
   * Ends the session: writes what is queued, then the final run.json with `status`, the
   * summary, the pace and the time over every session. The folder stays locked until
   * `release()`, so a resume started meanwhile cannot be overwritten by this run.json.
   */
  end(
    status: EndStatus,
    summary: unknown,
    pace: PaceRecord,
    spend: SessionSpend | null = null,
    extra: Record<string, unknown> = {},
    now = new Date(),
  ): RunInfo {
    if (!this.info || !this.session) throw new Error('RunFolder.end() before begin()');
    this.store.close();
    this.session.ended_at = now.toISOString();
    if (spend) this.session.spend = spend;
    const info: RunInfo = {
      ...this.info,
      status,
      ended_at: this.session.ended_at,
      elapsed_s: runTime(this.info.sessions ?? []).elapsed_s,
      pace,
      ...extra,
      summary,
    };
    this.info = info;
    writeRunInfo(this.dir, info);
    return info;
  }

  /** Closes results.jsonl if still open and gives the folder up. */
  release(): void {
    this.store.release();
  }

  /**
   * `complete`, for a resumed run whose every rollout is recorded and scored but whose run.json
   * says otherwise (killed after its last record, before its final run.json): written under
   * the lock this folder holds, so reports stop calling it interrupted. The session that never
   * wrote its end stays of unknown length.
   */
  markComplete(summary: unknown, now = new Date()): RunInfo {
    const saved = this.saved;
    if (!saved) throw new Error('RunFolder.markComplete() of a new run');
    const sessions = sessionsOf(saved);
    const info: RunInfo = {
      ...saved,
      status: 'complete',
      ended_at: now.toISOString(),
      ...(sessions.length > 0 ? { sessions, elapsed_s: runTime(sessions).elapsed_s } : {}),
      summary,
    };
    writeRunInfo(this.dir, info);
    return info;
  }
}
