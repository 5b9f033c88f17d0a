/**
 * The app: reads its data from the page (a report page or a bundle carries it as JSON) or
 * from `bas view`'s API, and shows the view the address names (display/route.ts). Every view
 * change is a new address: copy it and the same view opens, in the viewer, a page or a bundle.
 */
import type { PageData } from '../display/page-data.js';
import { parseRoute, routeHash, type Route } from '../display/route.js';
import { compareView } from './compare-view.js';
import { clear, el } from './dom.js';
import { EmbeddedSource } from './embedded.js';
import { RunView, type RunPlaces } from './run-view.js';
import { runsView } from './runs-view.js';
import { leaderboardView } from './leaderboard-view.js';
import { ApiSource, type Source } from './source.js';
import { sweepView } from './sweep-view.js';
import { Timers } from './timers.js';

const byId = (id: string): HTMLElement | null => document.getElementById(id);

/** The page's data, or null when the app runs in `bas view` (no data: the API answers). */
function pageData(): PageData | null {
  const node = byId('bas-data');
  return node === null ? null : (JSON.parse(node.textContent ?? 'null') as PageData);
}

class App {
  private timers = new Timers();
  private runView: RunView | null = null;

  constructor(
    private readonly source: Source,
    private readonly data: PageData | null,
  ) {}

  /** Goes to `r`: a new address (kept in the history unless `replace`), then the view. */
  go = (r: Route, replace = false): void => {
    const hash = routeHash(r);
    if (location.hash !== hash) history[replace ? 'replaceState' : 'pushState'](null, '', hash);
    this.show(r);
  };

  /** The route the address names, or, on a page, its own when the address names another view. */
  current(): Route {
    const r = parseRoute(location.hash);
    if (this.data === null || this.data.kind === 'bundle') return r;
    const start = parseRoute(this.data.start);
    if (r.view === 'run' && start.view === 'run' && r.run === start.run) return r;
    return start;
  }

  show(r: Route): void {
    if (r.view === 'run' && this.runView?.run === r.run) return this.runView.show(r);
    this.timers.cancel();
    this.timers = new Timers();
    this.runView = null;
    if (r.view === 'run') {
      this.runView = new RunView(this.source, r.run, this.places(), this.timers, this.go, r);
      return this.runView.show(r);
    }
    const app = clear(byId('app')!);
    if (r.view === 'compare') return void compareView(app, this.source, r);
    if (r.view === 'sweep') return sweepView(app, this.source, this.timers, r.sweep);
    if (r.view === 'leaderboard') return void leaderboardView(app, this.source);
    if (r.view === 'runs') return runsView(app, this.source, this.timers, this.go, r.sort, r.dir);
  }

  /** Where a run's parts go: a report page's own places, or the whole app. */
  private places(): RunPlaces {
    const list = byId('tasks-app');
    const drill = byId('drill');
    if (list !== null && drill !== null) return { header: null, list, drill };
    const app = clear(byId('app')!);
    const parts = { header: el('div'), list: el('div', { id: 'rollouts' }), drill: el('div', { id: 'drill' }) };
    app.append(parts.header, parts.list, parts.drill);
    return parts;
  }
}

function start(): void {
  const data = pageData();
  const source =
    data === null ? new ApiSource(new URLSearchParams(location.search).get('token')) : new EmbeddedSource(data);
  const app = new App(source, data);
  window.addEventListener('hashchange', () => app.show(app.current()));
  const first = app.current();
  if (data !== null && location.hash === '') history.replaceState(null, '', routeHash(first));
  app.show(first);
}

start();
