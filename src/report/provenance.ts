/**
 * A run's provenance: what a reader needs to cite its numbers (model, endpoint, sampling as
 * sent, size, tasks, versions, dates, wall time, status), read from run.json. A field the
 * run.json does not hold (folders of bas 0.3 and earlier lack some; a bare results file has
 * none) is null here and "unknown" in every rendering: never guessed.
 */
import type { RunFile } from '../runfile/read.js';
import type { RunInfo } from '../runfile/run-info.js';
import { runGenerator, runPromptVersion } from '../runfile/versions.js';
import { recordedProvider } from '../settings/providers.js';
import type { TaskConfig } from '../task/types.js';

/** Sampling settings as sent with every request; a null setting was not sent (the endpoint's default). */
export interface Sampling {
  temperature: number | null;
  max_tokens: number | null;
  reasoning_effort: string | null;
  /** Extra request-body fields given with `--extra-body`. */
  extra: Record<string, unknown>;
}

export interface Provenance {
  model: string;
  /** The provider registry's name, "none" where the run named none, null when unknown. */
  provider: string | null;
  /** The endpoint's host (no credentials, no path), "built-in" for a built-in policy, null when unknown. */
  endpoint: string | null;
  /** Null when run.json does not say (a scored or pre-0.2 run). */
  sampling: Sampling | null;
  /** Tasks asked (-n) and rollouts per task (-r). */
  n: number | null;
  rollouts: number | null;
  task: TaskConfig | null;
  /** Null where the tasks came from a file (`bas score`) or nothing says. */
  generator: number | null;
  prompt_version: number | null;
  bas_version: string | null;
  /** Which command wrote the folder: "bas eval", "bas score" or "bas merge"; null when unknown. */
  made_by: string | null;
  started_at: string | null;
  ended_at: string | null;
  /**
   * Seconds spent running, summed over the first start and every resume. Read from run.json
   * where bas records it; else, for a run never resumed, end minus start; else null.
   */
  wall_time_s: number | null;
  status: string | null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function finite(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The endpoint's host, without credentials or path; null for an unreadable URL. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

function samplingOf(v: unknown): Sampling | null {
  if (!isObject(v)) return null;
  const t = finite(v.temperature);
  const m = finite(v.max_tokens);
  return {
    temperature: t,
    max_tokens: m,
    reasoning_effort: str(v.reasoning_effort),
    extra: isObject(v.extra) ? v.extra : {},
  };
}

/** A sampling record that states nothing: every setting null, no extra field. */
function untold(v: unknown): boolean {
  const s = samplingOf(v);
  return (
    s === null ||
    (s.temperature === null &&
      s.max_tokens === null &&
      s.reasoning_effort === null &&
      Object.keys(s.extra).length === 0)
  );
}

/** The wall time run.json records (`elapsed_s`, over every session), else end − start for a run never resumed. */
function wallTime(run: RunFile | RunInfo): number | null {
  for (const k of ['elapsed_s', 'wall_time_s']) {
    const v = finite(run[k]);
    if (v !== null && v >= 0) return v;
  }
  const resumed =
    (Array.isArray(run.resumed_at) && run.resumed_at.length > 0) ||
    (Array.isArray(run.sessions) && run.sessions.length > 1);
  if (resumed || run.merged_from !== undefined) return null;
  const [a, b] = [Date.parse(String(run.started_at)), Date.parse(String(run.ended_at))];
  return Number.isFinite(a) && Number.isFinite(b) && b >= a ? (b - a) / 1000 : null;
}

/**
 * The provenance of a run from its run.json (as read back, or as the run just wrote it; null for
 * a bare results file) and what the records said.
 */
export function provenanceOf(run: RunFile | RunInfo | null, model: string, task: TaskConfig | null): Provenance {
  if (run === null)
    return {
      model,
      provider: null,
      endpoint: null,
      sampling: null,
      n: null,
      rollouts: null,
      task,
      generator: null,
      prompt_version: null,
      bas_version: null,
      made_by: null,
      started_at: null,
      ended_at: null,
      wall_time_s: null,
      status: null,
    };
  const scored = run.source === 'bas score' || Array.isArray(run.indices);
  const builtin = Object.hasOwn(run, 'base_url') && run.base_url === null && !scored;
  return {
    model,
    // A label beside a host that is not that provider's is not shown (settings/providers.ts).
    provider:
      str(run.provider) === null
        ? Object.hasOwn(run, 'provider')
          ? 'none'
          : null
        : (recordedProvider(str(run.provider), str(run.base_url)) ?? 'none'),
    endpoint: builtin ? 'built-in' : typeof run.base_url === 'string' ? hostOf(run.base_url) : null,
    // `bas score` before 0.4.1 recorded every setting as not sent, knowing nothing of how the
    // replies were made; it now records only what it is told. Either way nothing told is unknown.
    sampling: scored && untold(run.sampling) ? null : samplingOf(run.sampling),
    n: Array.isArray(run.indices) ? run.indices.length : (run.n ?? null),
    rollouts: run.rollouts ?? null,
    task,
    generator: runGenerator(run),
    prompt_version: runPromptVersion(run),
    bas_version: str(run.bas_version),
    made_by: scored ? 'bas score' : run.merged_from !== undefined ? 'bas merge' : run.model ? 'bas eval' : null,
    started_at: str(run.started_at),
    ended_at: str(run.ended_at),
    wall_time_s: wallTime(run),
    status: str(run.status),
  };
}

const UNKNOWN = 'unknown';

/**
 * "temperature 0 · max tokens 4096 · reasoning effort not sent", or "unknown". `axis`: the
 * field a sweep varies, said once as its axis ("max tokens: the axis") rather than per point.
 */
export function samplingText(s: Sampling | null, axis: string | null = null): string {
  if (s === null) return UNKNOWN;
  const part = (key: keyof Sampling, name: string) =>
    key === axis ? `${name}: the axis` : `${name} ${s[key] === null ? 'not sent' : String(s[key])}`;
  const parts = [
    part('temperature', 'temperature'),
    part('max_tokens', 'max tokens'),
    part('reasoning_effort', 'reasoning effort'),
  ];
  const extra = Object.keys(s.extra);
  if (extra.length) parts.push(`extra body ${JSON.stringify(s.extra)}`);
  return parts.join(' · ');
}

/** A compact form for table cells: "t=0 max=4096 effort=–". */
export function samplingShort(s: Sampling | null): string {
  if (s === null) return UNKNOWN;
  const v = (x: unknown) => (x === null ? '–' : String(x));
  const extra = Object.keys(s.extra).length ? ` +${Object.keys(s.extra).join(',')}` : '';
  return `t=${v(s.temperature)} max=${v(s.max_tokens)} effort=${v(s.reasoning_effort)}${extra}`;
}

/** Below this many seconds a time reads "under 1 ms" (it would round to 0 ms). */
export const UNDER_ONE_MS_S = 0.0005;

/**
 * Seconds as "340 ms", "42.0 s", "12 min 5 s", "3 h 20 min", or "unknown". Under a second the
 * time is given in whole milliseconds, so a short run never reads "0.0 s".
 */
export function durationText(s: number | null): string {
  if (s === null) return UNKNOWN;
  if (s < UNDER_ONE_MS_S) return 'under 1 ms';
  if (s < 0.9995) return `${Math.round(s * 1000)} ms`;
  // Rounded first, then split: 659.6 s is "11 min 0 s", never "10 min 60 s".
  if (s < 59.95) return `${s.toFixed(1)} s`;
  const whole = Math.round(s);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  const minutes = Math.round(s / 60);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The date part of an ISO timestamp ("2026-09-12"), or "unknown". */
export function dateText(iso: string | null): string {
  return iso === null ? UNKNOWN : iso.slice(0, 10);
}

/** An ISO timestamp as "2026-09-12 10:00:00 UTC", or "unknown". */
function timeText(iso: string | null): string {
  if (iso === null) return UNKNOWN;
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

function tasksText(p: Provenance): string {
  const t = p.task;
  const task = t ? `${t.num_transactions} rows, fault rate ${t.fault_rate}, seed ${t.seed}` : UNKNOWN;
  const size = `${p.n ?? UNKNOWN} tasks × ${p.rollouts ?? UNKNOWN} rollout${p.rollouts === 1 ? '' : 's'}`;
  return `${size} · ${task}`;
}

/** "bas 0.4.1 · generator 3, prompt 2 · made by bas eval", "unknown" where nothing says. */
export function versionsText(p: Provenance): string {
  const gen =
    p.generator === null
      ? p.made_by === 'bas score'
        ? 'tasks from a file'
        : `generator ${UNKNOWN}`
      : `generator ${p.generator}, prompt ${p.prompt_version ?? UNKNOWN}`;
  return `bas ${p.bas_version ?? UNKNOWN} · ${gen}${p.made_by ? ` · made by ${p.made_by}` : ''}`;
}

/** "api.example.com (provider none)", or "built-in policy (no endpoint)". */
export function endpointText(p: Provenance): string {
  return p.endpoint === 'built-in'
    ? 'built-in policy (no endpoint)'
    : `${p.endpoint ?? UNKNOWN} (provider ${p.provider ?? UNKNOWN})`;
}

/** The sampling columns of every CSV, beside `samplingCells`. */
export const SAMPLING_CSV_HEAD = ['temperature', 'max_tokens', 'reasoning_effort', 'extra_body'] as const;

/** The sampling as CSV cells: each setting (empty where not sent or unknown), the extra body as JSON. */
export function samplingCells(s: Sampling | null): Array<string | number | null> {
  return [
    s?.temperature ?? null,
    s?.max_tokens ?? null,
    s?.reasoning_effort ?? null,
    s && Object.keys(s.extra).length ? JSON.stringify(s.extra) : null,
  ];
}

/**
 * One text for several named things: the text when all share it, else each distinct text with
 * the names that have it ("t=0 (a, b); t=1 (c)"). A setting that differs is never shown as one.
 */
export function sharedText(items: Array<[name: string, text: string]>): string {
  const by = new Map<string, string[]>();
  for (const [name, text] of items) by.set(text, [...(by.get(text) ?? []), name]);
  if (by.size <= 1) return by.keys().next().value ?? UNKNOWN;
  return [...by].map(([text, names]) => `${text} (${names.join(', ')})`).join('; ');
}

/** The provenance as labelled lines (label, value), the same in text, Markdown and HTML. */
export function provenanceLines(p: Provenance): Array<[string, string]> {
  return [
    ['model', `${p.model} · ${endpointText(p)}`],
    ['sampling', samplingText(p.sampling)],
    ['tasks', tasksText(p)],
    ['versions', versionsText(p)],
    ['dates', `${timeText(p.started_at)} to ${timeText(p.ended_at)}`],
    ['wall time', `${durationText(p.wall_time_s)}, over the first start and every resume`],
    ['status', p.status ?? UNKNOWN],
  ];
}

/** Stable text of the sampling settings, for telling runs that differ apart. */
function samplingKey(s: Sampling | null): string {
  if (s === null) return UNKNOWN;
  const extra = Object.keys(s.extra)
    .sort()
    .map((k) => [k, s.extra[k]]);
  return JSON.stringify([s.temperature, s.max_tokens, s.reasoning_effort, extra]);
}

/**
 * What differs between two runs' sampling settings, in words ("temperature 0 vs 0.7"), or
 * null when they were sent the same. Unknown on either side counts as a difference: a pair
 * is never called like-for-like on a guess.
 */
export function samplingDifference(a: Sampling | null, b: Sampling | null): string | null {
  if (samplingKey(a) === samplingKey(b)) return null;
  if (a === null || b === null)
    return `sampling ${a === null ? UNKNOWN : 'known'} vs ${b === null ? UNKNOWN : 'known'}`;
  const v = (x: unknown) => (x === null ? 'not sent' : String(x));
  const parts: string[] = [];
  if (a.temperature !== b.temperature) parts.push(`temperature ${v(a.temperature)} vs ${v(b.temperature)}`);
  if (a.max_tokens !== b.max_tokens) parts.push(`max tokens ${v(a.max_tokens)} vs ${v(b.max_tokens)}`);
  if (a.reasoning_effort !== b.reasoning_effort)
    parts.push(`reasoning effort ${v(a.reasoning_effort)} vs ${v(b.reasoning_effort)}`);
  if (parts.length === 0) parts.push('extra body fields differ');
  return parts.join(', ');
}
