/**
 * One run: (from the viewer or a bundle) its status, provenance, notes and the summary as
 * `bas report` prints it, then its rollouts (list-view.ts) and the one open (rollout-view.ts).
 * A run's report page has its summary drawn by the server already: there the app fills only
 * the list and the open rollout. While the run is running the view asks again every 1.5 s.
 */
import { est, int } from '../display/format.js';
import type { ListQuery } from '../display/list.js';
import { pairText, type Pair, type Route } from '../display/route.js';
import { progressOf, type ProgressAnswer, type RunAnswer } from './answers.js';
import { clear, el, pairsTable, problem } from './dom.js';
import { ListView } from './list-view.js';
import { rolloutPanel } from './rollout-view.js';
import { statusOf, type Source } from './source.js';
import type { Timers } from './timers.js';

type RunRoute = Extract<Route, { view: 'run' }>;
export type Go = (r: Route, replace?: boolean) => void;

/** Where a run's parts go: the whole view (viewer, bundle), or a report page's own places. */
export interface RunPlaces {
  header: HTMLElement | null;
  list: HTMLElement;
  drill: HTMLElement;
}

export class RunView {
  private readonly list: ListView;
  private readonly status = el('p', { id: 'progress' });
  private opened: string | null = null;

  constructor(
    private readonly source: Source,
    readonly run: string,
    private readonly places: RunPlaces,
    private readonly timers: Timers,
    go: Go,
    r: RunRoute,
  ) {
    const toRoute = (list: ListQuery, open: Pair | null, replace: boolean) =>
      go({ view: 'run', run: this.run, list, open }, replace);
    this.list = new ListView(source, run, r.list, r.open, toRoute, source.why);
    clear(places.list).append(this.list.root);
    if (places.header) void this.header(places.header);
  }

  /** Shows the list and the open rollout that `r` asks for. */
  show(r: RunRoute): void {
    void this.list.show(r.list, r.open);
    const key = r.open ? pairText(r.open) : null;
    if (key !== this.opened) {
      this.opened = key;
      void this.openRollout(r.open);
    }
  }

  private async openRollout(p: Pair | null): Promise<void> {
    const drill = clear(this.places.drill);
    if (p === null) return;
    try {
      const d = await this.source.rollout(this.run, p);
      if (this.opened !== pairText(p)) return;
      clear(drill).append(rolloutPanel(d, { id: 'drill-panel' }));
      drill.scrollIntoView?.({ block: 'start' });
    } catch (err) {
      clear(drill).append(problem(err));
      // 409: the results file is still being read, and this rollout is not among those read yet.
      if (statusOf(err) === 409) this.timers.later(() => this.openRollout(p), 1000);
    }
  }

  private async header(box: HTMLElement): Promise<void> {
    const title = el('h1', { text: this.run });
    const body = el('div');
    box.append(el('p', null, [el('a', { href: '#/', text: '← runs' })]), title, this.status, body);
    try {
      const r = await this.source.run(this.run);
      title.textContent = `${r.model} · ${r.id}`;
      this.showProgress(progressOf(r));
      clear(body).append(...reportParts(r));
      if (r.summary_pending) this.timers.later(() => this.header(clear(box)), 2000);
      else if (r.status === 'running' && this.source.live) this.timers.later(() => this.poll(), 1500);
    } catch (err) {
      body.append(problem(err));
    }
  }

  /** While the run is running: its progress and its list, asked again every 1.5 s. */
  private async poll(): Promise<void> {
    try {
      const p = await this.source.progress(this.run);
      this.showProgress(p);
      this.list.refresh();
      if (p.status === 'running') this.timers.later(() => this.poll(), 1500);
      else if (this.places.header) void this.header(clear(this.places.header));
    } catch {
      this.timers.later(() => this.poll(), 3000);
    }
  }

  private showProgress(p: ProgressAnswer): void {
    const f = p.figures;
    this.status.className = `status-${p.status}`;
    this.status.textContent =
      `${p.status} · ${int(p.recorded)}${p.expected !== null ? ` of ${int(p.expected)}` : ''} rollouts recorded` +
      (f ? ` · reward ${est(f.reward)} · ${int(f.errored)} errored` : '');
  }
}

/** The problems, provenance, notes and summary text of a run's answer. */
function reportParts(r: RunAnswer): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (r.problem) out.push(el('p', { cls: 'problem', text: r.problem }));
  if (r.index?.damaged_lines) {
    out.push(
      el('p', {
        cls: 'problem',
        text: `results.jsonl has ${r.index.damaged_lines} damaged line(s); the rest is shown:`,
      }),
    );
    out.push(
      el(
        'ul',
        null,
        r.index.damage.map((d) => el('li', { cls: 'problem', text: `line ${d.line} ${d.reason}` })),
      ),
    );
  }
  out.push(el('h2', { text: 'Provenance' }), pairsTable(r.provenance ?? [], { id: 'provenance' }));
  for (const n of r.notes) out.push(el('p', { cls: 'note', text: `note: ${n}` }));
  const text =
    r.summary_pending && !r.text
      ? '(the summary is being read from the results file; it shows here when it is done)'
      : (r.text ?? `(no summary: ${r.problem ?? 'no rollouts yet'})`);
  out.push(el('h2', { text: 'Summary (as bas report shows it)' }), el('pre', { id: 'report', text }));
  out.push(el('h2', { text: 'Rollouts' }));
  return out;
}
