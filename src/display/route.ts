/**
 * The app's state in the address, after `#`: which view, which run or runs, the list's
 * filters, order and page, and the rollout open. `parseRoute` and `routeHash` are inverse, so
 * a copied address reopens the same view, in `bas view`, in a report page or in a bundle.
 *
 *   #/                                   the runs (#/?sort=reward&dir=desc)
 *   #/run/ID?show=error&page=2&rollout=I:R  one run: its list filtered and paged, a rollout open
 *   #/compare?a=ID&b=ID&rollout=I:R      two runs: the diff, a task open side by side
 *   #/sweep/ID                           a sweep
 *   #/leaderboard                        a leaderboard
 *
 * A run's ID is its folder under the served one and may hold `/`: `#/run/runs/x` and
 * `#/run/runs%2Fx` open the same run. The addresses of bas 0.4 (`#/run/ID/rollout/I:R`,
 * `#/compare/A/B/task/I:R`, `errored=1`, `offset=50`) still open what they opened.
 */
import { CONSISTENCY, EMPTY_QUERY, PAGE_ROWS, SHOW, SORTS, type ListQuery, type Show, type Sort } from './list.js';

export interface Pair {
  index: number;
  rollout: number;
}

export type Route =
  | { view: 'runs'; sort: string; dir: 'asc' | 'desc' }
  | { view: 'run'; run: string; list: ListQuery; open: Pair | null }
  | { view: 'compare'; a: string; b: string; open: Pair | null; page: number }
  | { view: 'sweep'; sweep: string }
  | { view: 'leaderboard' };

/** `I:R` (or `I`, rollout 0) as a pair; null when it is not one. */
export function parsePair(text: string | null | undefined): Pair | null {
  const m = /^(\d{1,10})(?::(\d{1,7}))?$/.exec(text ?? '');
  return m ? { index: Number(m[1]), rollout: Number(m[2] ?? 0) } : null;
}

export const pairText = (p: Pair): string => `${p.index}:${p.rollout}`;

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** A folder id as path segments, each encoded: `runs/x` stays readable in the address. */
export function idPath(id: string): string {
  return id.split('/').map(encodeURIComponent).join('/');
}

const pick = <T extends string>(list: readonly T[], v: string | null, fallback: T): T =>
  v !== null && (list as readonly string[]).includes(v) ? (v as T) : fallback;

const pageOf = (v: string | null): number => {
  const n = Number(v);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

/** The list's state from the address's parameters (the names of bas 0.4 too). */
function listQuery(p: URLSearchParams): ListQuery {
  let show: Show = pick(SHOW, p.get('show'), 'all');
  if (p.get('errored') === '1') show = 'error';
  else if (p.get('errored') === '0') show = 'completed';
  if (p.get('bas_wrong') === '1') show = 'bas-wrong';
  const offset = pageOf(p.get('offset'));
  return {
    show,
    missed: p.get('missed') ?? '',
    wrong: p.get('wrong') ?? '',
    reward_min: p.get('reward_min') ?? '',
    reward_max: p.get('reward_max') ?? '',
    consistency: pick(CONSISTENCY, p.get('consistency'), ''),
    task: p.get('task') ?? '',
    sort: pick<Sort>(SORTS, p.get('sort'), 'index'),
    page: p.has('page') ? pageOf(p.get('page')) : Math.floor(offset / PAGE_ROWS),
  };
}

function runRoute(parts: string[], p: URLSearchParams): Route {
  let ids = parts;
  let open = parsePair(p.get('rollout'));
  const n = parts.length;
  // bas 0.4: #/run/ID/rollout/I:R
  if (n >= 3 && parts[n - 2] === 'rollout' && parsePair(parts[n - 1])) {
    open = parsePair(parts[n - 1]);
    ids = parts.slice(0, n - 2);
  }
  return { view: 'run', run: ids.join('/'), list: listQuery(p), open };
}

function compareRoute(parts: string[], p: URLSearchParams): Route {
  let [a, b] = [p.get('a') ?? '', p.get('b') ?? ''];
  let open = parsePair(p.get('rollout'));
  // bas 0.4: #/compare/A/B and #/compare/A/B/task/I:R (each id one encoded segment).
  if (parts.length === 2 || (parts.length === 4 && parts[2] === 'task')) {
    [a, b] = [parts[0]!, parts[1]!];
    if (parts.length === 4) open = parsePair(parts[3]);
  }
  return { view: 'compare', a, b, open, page: pageOf(p.get('page')) };
}

/** The route an address's hash names; anything unknown is the runs. */
export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#/, '') || '/';
  const qi = h.indexOf('?');
  const path = qi < 0 ? h : h.slice(0, qi);
  const p = new URLSearchParams(qi < 0 ? '' : h.slice(qi + 1));
  const parts = path.split('/').filter(Boolean).map(decode);
  const [head, ...rest] = parts;
  if (head === 'run' && rest.length > 0) return runRoute(rest, p);
  if (head === 'compare') return compareRoute(rest, p);
  if (head === 'sweep' && rest.length > 0) return { view: 'sweep', sweep: rest.join('/') };
  if (head === 'leaderboard') return { view: 'leaderboard' };
  return { view: 'runs', sort: p.get('sort') ?? 'started', dir: p.get('dir') === 'asc' ? 'asc' : 'desc' };
}

function listParams(q: ListQuery, open: Pair | null): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q) as Array<[keyof ListQuery, string | number]>) {
    if (v === EMPTY_QUERY[k]) continue;
    p.set(k, String(v));
  }
  if (open) p.set('rollout', pairText(open));
  return p;
}

const withQuery = (path: string, p: URLSearchParams): string =>
  p.toString() === '' ? path : `${path}?${p.toString()}`;

/** The hash that reopens `r`. */
export function routeHash(r: Route): string {
  switch (r.view) {
    case 'run':
      return withQuery(`#/run/${idPath(r.run)}`, listParams(r.list, r.open));
    case 'compare': {
      const p = new URLSearchParams({ a: r.a, b: r.b });
      if (r.open) p.set('rollout', pairText(r.open));
      if (r.page > 0) p.set('page', String(r.page));
      return withQuery('#/compare', p);
    }
    case 'sweep':
      return `#/sweep/${idPath(r.sweep)}`;
    case 'leaderboard':
      return '#/leaderboard';
    default:
      return r.sort === 'started' && r.dir === 'desc' ? '#/' : `#/?sort=${encodeURIComponent(r.sort)}&dir=${r.dir}`;
  }
}
