/**
 * The runs under the viewer's folder (or in a bundle) and the sweeps holding some of them:
 * sortable by any column (the order is in the address), two runs picked to diff, and while
 * the source is live, asked again every 1.5 s so a running run's count follows its file.
 */
import { est, int, usd } from '../display/format.js';
import { idPath, routeHash } from '../display/route.js';
import type { RunRow } from '../display/runs.js';
import type { RunsAnswer } from './answers.js';
import { bodyOf, clear, el, problem, table } from './dom.js';
import type { Go } from './run-view.js';
import type { Source } from './source.js';
import type { Timers } from './timers.js';

const COLUMNS: Array<[string, string]> = [
  ['id', 'run'],
  ['status', 'status'],
  ['model', 'model'],
  ['endpoint', 'endpoint'],
  ['task', 'task'],
  ['sampling', 'sampling'],
  ['progress', 'rollouts'],
  ['reward', 'reward [95% CI]'],
  ['errors', 'errors'],
  ['tokens', 'tokens'],
  ['cost', 'cost'],
  ['started', 'started'],
];

function sortValue(r: RunRow, key: string): number | string {
  const f = r.figures;
  switch (key) {
    case 'progress':
      return r.recorded ?? -1;
    case 'reward':
      return f?.reward.mean ?? -1;
    case 'errors':
      return f ? f.errored : -1;
    case 'tokens':
      return f ? f.tokens : -1;
    case 'cost':
      return f?.cost_usd ?? -1;
    case 'started':
      return r.started_at ?? '';
    default:
      return String((r as unknown as Record<string, unknown>)[key] ?? '');
  }
}

// A figure that may be incomplete (requests in flight at a stop, replies without usage) says so.
const atLeast = (text: string, f: NonNullable<RunRow['figures']>) =>
  f.cost_at_least && text !== '–' ? `at least ${text}` : text;

function runCells(r: RunRow): HTMLElement[] {
  const f = r.figures;
  const progress = `${r.recorded === null ? '–' : int(r.recorded)}${r.expected !== null ? ` / ${int(r.expected)}` : ''}`;
  return [
    el('td', null, [
      el('a', { href: `#/run/${idPath(r.id)}`, text: r.id }),
      r.sweep ? el('div', { cls: 'small', text: `sweep ${r.sweep}` }) : null,
      r.problem ? el('div', { cls: 'problem', text: r.problem }) : null,
    ]),
    el('td', { cls: `status-${r.status}`, text: r.status }),
    el('td', { text: r.model }),
    el('td', { text: r.endpoint ?? 'unknown' }),
    el('td', { text: r.task }),
    el('td', { text: r.sampling }),
    el('td', { cls: 'num progress', text: progress }),
    el('td', { cls: 'num reward', text: f ? est(f.reward) : '–' }),
    el('td', { cls: 'num', text: f ? int(f.errored) : '–' }),
    el('td', { cls: 'num', text: f ? atLeast(int(f.tokens), f) : '–' }),
    el('td', { cls: 'num', text: f ? atLeast(usd(f.cost_usd), f) : '–' }),
    el('td', { text: r.started_at ?? '' }),
  ];
}

function sweepsTable(a: RunsAnswer): HTMLElement[] {
  if (!a.sweeps.length) return [];
  const t = table(['sweep', 'status', 'models', 'points complete', 'created'], { id: 'sweeps' });
  for (const s of a.sweeps)
    bodyOf(t).append(
      el('tr', null, [
        el('td', null, [el('a', { href: `#/sweep/${idPath(s.id)}`, text: s.id })]),
        el('td', { cls: `status-${s.status}`, text: s.status }),
        el('td', { text: s.problem ?? s.models.join(', ') }),
        el('td', { cls: 'num', text: `${s.complete} of ${s.points}` }),
        el('td', { text: s.created_at ?? '' }),
      ]),
    );
  return [el('h2', { text: 'Sweeps' }), t, el('h2', { text: 'Runs' })];
}

/** The header row: a column to pick, then each column, sortable (the order is in the address). */
function sortHead(t: HTMLTableElement, go: Go, sort: string, dir: 'asc' | 'desc'): void {
  const head = t.tHead!.rows[0]!;
  head.append(el('th', { text: 'pick' }));
  for (const [key, name] of COLUMNS) {
    const arrow = sort === key ? (dir === 'asc' ? ' ▲' : ' ▼') : '';
    const flip = sort === key && dir === 'desc' ? 'asc' : 'desc';
    const onclick = () => go({ view: 'runs', sort: key, dir: flip });
    head.append(el('th', { cls: 'sortable', 'data-key': key, text: name + arrow, onclick }));
  }
}

/** Two runs picked to compare: a link to their diff once there are two. */
class Picked {
  private readonly ids: string[] = [];
  readonly link = el('a', { id: 'compare-link', cls: 'small' });
  constructor(private readonly t: HTMLTableElement) {
    this.show();
  }
  has = (id: string): boolean => this.ids.includes(id);
  pick(id: string, on: boolean): void {
    const at = this.ids.indexOf(id);
    if (at >= 0) this.ids.splice(at, 1);
    if (on) this.ids.push(id);
    if (this.ids.length > 2) this.ids.shift();
    for (const box of this.t.querySelectorAll<HTMLInputElement>('input[data-run]'))
      box.checked = this.has(box.dataset.run!);
    this.show();
  }
  private show(): void {
    const [a, b] = this.ids;
    if (a !== undefined && b !== undefined) {
      this.link.setAttribute('href', routeHash({ view: 'compare', a, b, open: null, page: 0 }));
      this.link.textContent = 'compare the two runs picked';
    } else {
      this.link.removeAttribute('href');
      this.link.textContent = 'pick two runs to compare them';
    }
  }
}

function sorted(rows: RunRow[], sort: string, dir: 'asc' | 'desc'): RunRow[] {
  return rows.slice().sort((x, y) => {
    const [p, q] = [sortValue(x, sort), sortValue(y, sort)];
    const c = p < q ? -1 : p > q ? 1 : 0;
    return dir === 'asc' ? c : -c;
  });
}

/** Shows the runs in `app`, sorted by `sort` in `dir`. */
export function runsView(app: HTMLElement, source: Source, timers: Timers, go: Go, sort: string, dir: 'asc' | 'desc') {
  const info = el('p', { cls: 'small' });
  const sweeps = el('div');
  const t = table([], { id: 'runs' });
  sortHead(t, go, sort, dir);
  const picked = new Picked(t);
  const board = el('a', {
    id: 'leaderboard-link',
    cls: 'small',
    href: '#/leaderboard',
    text: 'the runs ranked (leaderboard)',
  });
  clear(app).append(el('h1', { text: 'Runs' }), info, el('p', null, [picked.link, ' · ', board]), sweeps, t);
  let loads = 0;
  const draw = (a: RunsAnswer) => {
    // How many answers the table has shown: a test waits for the next one, never for a time.
    t.dataset.loads = String(++loads);
    const unnamed = a.unnamed?.length
      ? `; not opened, as their names are not UTF-8 (rename them): ${a.unnamed.join(', ')}`
      : '';
    const cut = a.truncated ? ' (the walk stopped at its bounds: some folders are not listed)' : '';
    info.textContent = `${a.runs.length} run(s) under ${a.root}${cut}${unnamed}`;
    clear(sweeps).append(...sweepsTable(a));
    clear(bodyOf(t)).append(
      ...sorted(a.runs, sort, dir).map((r) => {
        const box = el('input', { type: 'checkbox', 'data-run': r.id });
        box.checked = picked.has(r.id);
        box.addEventListener('change', () => picked.pick(r.id, box.checked));
        return el('tr', { 'data-run': r.id }, [el('td', null, [box]), ...runCells(r)]);
      }),
    );
  };
  const load = async (): Promise<void> => {
    try {
      const a = await source.runs();
      draw(a);
      if (source.live) timers.later(load, 1500);
    } catch (err) {
      app.append(problem(err));
      if (source.live) timers.later(load, 3000);
    }
  };
  void load();
}
