/**
 * Which endpoints a run's replies came from. A run resumed against another base URL or
 * provider (a proxy that moved, a second provider serving the same model) keeps going, and
 * run.json's `endpoints` lists every endpoint the run used with how many of its scored
 * rollouts each one answered, so a report never passes one endpoint's figures off as
 * another's. Runs of bas 0.3 and earlier have no list: their one endpoint is `base_url`, and
 * it answered every rollout they scored.
 */
import { recordedProvider } from '../settings/providers.js';

/** One endpoint of a run and the scored rollouts whose reply came from it. */
export interface RunEndpoint {
  base_url: string | null;
  provider: string | null;
  rollouts: number;
}

/** A run.json lists at most this many; past it the list is not one bas wrote. */
const MAX_ENDPOINTS = 1000;

function isEndpoint(v: unknown): v is RunEndpoint {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  return (
    (e.base_url === null || (typeof e.base_url === 'string' && e.base_url.length <= 2048)) &&
    (e.provider === null || (typeof e.provider === 'string' && e.provider.length <= 200)) &&
    Number.isSafeInteger(e.rollouts) &&
    (e.rollouts as number) >= 0
  );
}

/**
 * The endpoints a run.json records: its `endpoints` when readable, else (a run of 0.3, or a
 * damaged list) its `base_url` and `provider` with `completed` rollouts; null for a run that
 * talked to no endpoint (a built-in model, a scored run).
 */
export function runEndpoints(
  run: { endpoints?: unknown; base_url?: unknown; provider?: unknown },
  completed: number,
): RunEndpoint[] | null {
  const list = run.endpoints;
  const last = labelled({
    base_url: typeof run.base_url === 'string' ? run.base_url : null,
    provider: typeof run.provider === 'string' ? run.provider : null,
  });
  if (Array.isArray(list) && list.length > 0 && list.length <= MAX_ENDPOINTS && list.every(isEndpoint)) {
    const { list: out, entry } = useEndpoint(list.map(labelled), last);
    // A process killed mid-run never wrote its final counts: the scored rollouts no entry
    // accounts for came from the endpoint it was using, the one `base_url` names.
    const counted = out.reduce((sum, e) => sum + e.rollouts, 0);
    if (completed > counted) entry.rollouts += completed - counted;
    return out.filter((e) => e.rollouts > 0 || e === entry);
  }
  if (last.base_url === null) return null;
  return [{ ...last, rollouts: completed }];
}

/** The endpoint with its provider label only where its host is that provider's (an old run's may not be). */
function labelled<E extends { base_url: string | null; provider: string | null }>(e: E): E {
  return { ...e, provider: recordedProvider(e.provider, e.base_url) };
}

/**
 * The list with `endpoint` in it (added at the end with 0 rollouts when new) and the entry to
 * count this process's scored rollouts on.
 */
export function useEndpoint(
  list: RunEndpoint[],
  endpoint: { base_url: string | null; provider: string | null },
): { list: RunEndpoint[]; entry: RunEndpoint } {
  const copy = list.map((e) => ({ ...e }));
  let entry = copy.find((e) => e.base_url === endpoint.base_url && e.provider === endpoint.provider);
  if (entry === undefined) copy.push((entry = { ...endpoint, rollouts: 0 }));
  return { list: copy, entry };
}

/** The endpoints of several runs merged: one entry per endpoint, their rollouts added. */
export function mergeEndpoints(lists: Array<RunEndpoint[] | null>): RunEndpoint[] | null {
  let out: RunEndpoint[] = [];
  for (const list of lists) {
    for (const e of list ?? []) {
      const { list: next, entry } = useEndpoint(out, e);
      entry.rollouts += e.rollouts;
      out = next;
    }
  }
  return out.length > 0 ? out : null;
}
