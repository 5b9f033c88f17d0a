/**
 * How long a run took, across every process that worked on it. A run is made of sessions:
 * the first `bas eval` and each `--resume`. run.json lists them (`sessions`, each with its
 * start, its end and the rollouts it recorded) and keeps their total (`elapsed_s`), so the
 * time a run took counts every part of it, not only the last resume.
 *
 * Runs written before sessions were recorded (bas 0.3) have `started_at`, `resumed_at` and
 * `ended_at`: their sessions are rebuilt from those, and a session whose end was never
 * written (a resumed one, whose end 0.3 did not keep, or one killed with `kill -9`) counts as
 * of unknown length rather than a guess.
 */
import type { SpendBeside } from '../summary/spend.js';
import type { InFlight, TokenSums } from '../summary/summary.js';
import type { Unreported } from '../summary/billed.js';

/** One change of the limit on requests in flight, for run.json. */
export interface PaceChange {
  /** Seconds since the run started. */
  at_s: number;
  limit: number;
}

/** What run.json records about the pace of the requests (`pace`). */
export interface PaceRecord {
  adaptive: boolean;
  max: number;
  /** The limit when the run ended. */
  final: number;
  lowest: number;
  /** The first and the latest changes; `dropped` counts those left out between them. */
  changes: PaceChange[];
  dropped: number;
  /** 429s received, retries included (since 0.4.1; absent before). */
  rate_limited?: number;
  /** Requests a second the pace spaced requests at when the run ended; null when no limit was met (since 0.4.1). */
  rate_rps?: number | null;
  /** The lowest such rate (since 0.4.1). */
  lowest_rate_rps?: number | null;
}

/** What run.json keeps of one session's spend beside its records (additive, since 0.4.1). */
export interface SessionSpend extends SpendBeside {
  /** Usage reported by responses whose rollouts were not recorded (abandoned by a stop, or the refusal that stopped the run); `lines`: rollouts. */
  unrecorded: TokenSums;
  /** Requests in flight when the run stopped, and the most they may have cost (completion null: unknown). */
  in_flight: InFlight;
  /**
   * Requests billed whose usage is unknown (a 200 without usage, a reply lost on its way), with
   * the worst case the budget charged for them: a resume starts its budget from it (since 0.4.1).
   */
  unreported?: Unreported;
}

/** One process's part of a run, as run.json's `sessions` lists it. */
export interface RunSession {
  started_at: string;
  /** Null while it runs, or when it ended without writing its end (killed). */
  ended_at: string | null;
  /** Rollouts it recorded; null where unknown (sessions rebuilt from a bas 0.3 run.json). */
  rollouts: number | null;
  /** What it spent beside its records (since 0.4.1; absent before, and while it runs). */
  spend?: SessionSpend;
}

/** The time a run took, for a header or a report. */
export interface RunTime {
  /** Seconds over the sessions whose length is known; null when none is. */
  elapsed_s: number | null;
  sessions: number;
  /** Sessions whose end was never written, left out of `elapsed_s`. */
  unknown: number;
}

/** A bound on what is believed from a hand-edited file: far more sessions than anyone resumes. */
const MAX_SESSIONS = 100_000;

function isTime(v: unknown): v is string {
  return typeof v === 'string' && v.length <= 40 && Number.isFinite(Date.parse(v));
}

/** A count as run.json may hold one: a whole number from 0 up; anything else is not believed. */
function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

const UNRECORDED_KEYS = ['prompt', 'completion', 'total', 'reasoning', 'cached', 'lines'] as const;

/** A session's `spend` when every count in it reads, else null (a damaged one is left out, not guessed). */
function readSpend(v: unknown): SessionSpend | null {
  if (typeof v !== 'object' || v === null) return null;
  const { unrecorded: u, in_flight: f } = v as Record<string, unknown>;
  if (typeof u !== 'object' || u === null || typeof f !== 'object' || f === null) return null;
  const ur = u as Record<string, unknown>;
  const fr = f as Record<string, unknown>;
  if (!UNRECORDED_KEYS.every((k) => isCount(ur[k]))) return null;
  if (!isCount(fr.requests) || !isCount(fr.prompt) || !(fr.completion === null || isCount(fr.completion))) return null;
  const unrecorded = Object.fromEntries(UNRECORDED_KEYS.map((k) => [k, ur[k]])) as unknown as TokenSums;
  const unreported = readUnreported((v as Record<string, unknown>).unreported);
  if (unreported === null) return null;
  return {
    unrecorded,
    in_flight: { requests: fr.requests, prompt: fr.prompt, completion: fr.completion as number | null },
    ...(unreported === undefined ? {} : { unreported }),
  };
}

/** A session's `unreported`: undefined when absent (written before 0.4.1), null when damaged. */
function readUnreported(v: unknown): Unreported | null | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null) return null;
  const r = v as Record<string, unknown>;
  if (!isCount(r.requests) || !isCount(r.prompt) || !isCount(r.completion)) return null;
  return { requests: r.requests, prompt: r.prompt, completion: r.completion };
}

/**
 * The spend beside the records over `sessions`: the usage of unrecorded rollouts summed, and
 * the requests abandoned in flight with their worst case (completion null when any was unknown).
 */
export function spendOf(sessions: ReadonlyArray<{ spend?: SessionSpend }>): SessionSpend {
  const out: SessionSpend = {
    unrecorded: { prompt: 0, completion: 0, total: 0, reasoning: 0, cached: 0, lines: 0 },
    in_flight: { requests: 0, prompt: 0, completion: 0 },
    unreported: { requests: 0, prompt: 0, completion: 0 },
  };
  for (const s of sessions) {
    if (!s.spend) continue;
    const u = s.spend.unreported;
    if (u) for (const k of ['requests', 'prompt', 'completion'] as const) out.unreported![k] += u[k];
    for (const k of UNRECORDED_KEYS) out.unrecorded[k] += s.spend.unrecorded[k];
    const f = s.spend.in_flight;
    out.in_flight.requests += f.requests;
    out.in_flight.prompt += f.prompt;
    out.in_flight.completion =
      out.in_flight.completion === null || f.completion === null ? null : out.in_flight.completion + f.completion;
  }
  return out;
}

function readSession(v: unknown): RunSession | null {
  if (typeof v !== 'object' || v === null) return null;
  const s = v as Record<string, unknown>;
  if (!isTime(s.started_at)) return null;
  const rollouts = s.rollouts;
  const spend = readSpend(s.spend);
  return {
    started_at: s.started_at,
    ended_at: isTime(s.ended_at) ? s.ended_at : null,
    rollouts: typeof rollouts === 'number' && Number.isSafeInteger(rollouts) && rollouts >= 0 ? rollouts : null,
    ...(spend ? { spend } : {}),
  };
}

/**
 * The sessions of a run, from its run.json (any version; every field may be missing or
 * damaged, since the file may be old or edited): its `sessions` when they read, else those
 * rebuilt from `started_at`, `resumed_at` and `ended_at`. Empty when nothing says, and for a
 * merged or scored run without sessions of its own.
 */
export function sessionsOf(info: Record<string, unknown> | null): RunSession[] {
  if (info === null) return [];
  if (Array.isArray(info.sessions) && info.sessions.length <= MAX_SESSIONS) {
    const read = info.sessions.map(readSession);
    if (read.every((s) => s !== null)) return read as RunSession[];
  }
  // A merged or scored run's dates say when its folder was built, not when anything ran.
  if (!isTime(info.started_at) || info.merged_from !== undefined || info.source !== undefined) return [];
  const resumed = Array.isArray(info.resumed_at) ? info.resumed_at.slice(0, MAX_SESSIONS).filter(isTime) : [];
  const starts = [info.started_at, ...resumed];
  // Only the last session's end was kept; the earlier ones ended at some unrecorded time.
  return starts.map((started_at, k) => ({
    started_at,
    ended_at: k === starts.length - 1 && isTime(info.ended_at) ? info.ended_at : null,
    rollouts: null,
  }));
}

function lengthS(s: RunSession): number | null {
  if (s.ended_at === null) return null;
  const d = (Date.parse(s.ended_at) - Date.parse(s.started_at)) / 1000;
  return d >= 0 ? d : null;
}

/** The time over `sessions`: the known lengths added up, and how many are unknown. */
export function runTime(sessions: readonly RunSession[]): RunTime {
  let total = 0;
  let known = 0;
  for (const s of sessions) {
    const d = lengthS(s);
    if (d === null) continue;
    total += d;
    known++;
  }
  return {
    elapsed_s: known > 0 ? Math.round(total * 1000) / 1000 : null,
    sessions: sessions.length,
    unknown: sessions.length - known,
  };
}

/**
 * The time a run took, from its run.json. A scored or merged run was not timed (its start
 * and end say when the folder was built), so it has no sessions.
 */
export function timeOfRun(info: Record<string, unknown> | null): RunTime {
  if (info === null || info.source !== undefined || info.merged_from !== undefined)
    return { elapsed_s: null, sessions: 0, unknown: 0 };
  return runTime(sessionsOf(info));
}

/**
 * What a run spent beside its records over its whole life: its sessions' `spend`, and for a
 * merged run each input's, kept in `merged_from[].spend` (a merged run keeps no sessions: shards
 * may run side by side, so their times do not add up).
 */
export function spendBeside(
  info: Record<string, unknown> | null,
  more: ReadonlyArray<{ spend?: SessionSpend }> = [],
): SessionSpend {
  const merged = Array.isArray(info?.merged_from) ? info.merged_from.slice(0, MAX_SESSIONS) : [];
  const inputs = merged.map((m: unknown) => {
    const spend = typeof m === 'object' && m !== null ? readSpend((m as Record<string, unknown>).spend) : null;
    return spend === null ? {} : { spend };
  });
  return spendOf([...sessionsOf(info), ...inputs, ...more]);
}
