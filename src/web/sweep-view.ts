/** One sweep: its settings, its table as `bas sweep` prints it, and its points, each linked to its run. */
import { est, int } from '../display/format.js';
import { idPath } from '../display/route.js';
import type { SweepAnswer } from './answers.js';
import { bodyOf, clear, el, pairsTable, problem, table } from './dom.js';
import type { Source } from './source.js';
import { sectionsView } from './blocks-view.js';
import { folded } from './leaderboard-view.js';
import type { Timers } from './timers.js';

function pointRow(p: SweepAnswer['points'][number]): HTMLElement {
  const run =
    p.status === 'not started' ? el('span', { text: p.run }) : el('a', { href: `#/run/${idPath(p.run)}`, text: p.run });
  return el('tr', null, [
    el('td', null, [run]),
    el('td', { text: p.model ?? '' }),
    el('td', { text: p.point }),
    el('td', { cls: `status-${p.status}`, text: p.status }),
    el('td', { cls: 'num', text: `${int(p.recorded)}${p.expected !== null ? ` of ${int(p.expected)}` : ''}` }),
    el('td', { text: p.problem ?? est(p.reward) }),
  ]);
}

/** Shows sweep `id` in `app`, asked again every 1.5 s while a point runs. */
export function sweepView(app: HTMLElement, source: Source, timers: Timers, id: string): void {
  const head = el('p', { id: 'sweep-status' });
  const settings = el('div');
  const text = el('pre', { id: 'sweep-table' });
  const points = table(['run', 'model', 'point', 'status', 'rollouts', 'reward [95% CI]'], { id: 'sweep-points' });
  const tables = el('div', { id: 'sweep-sections' });
  clear(app).append(
    el('p', null, [el('a', { href: '#/', text: '← runs' })]),
    el('h1', { text: `sweep ${id}` }),
    head,
    tables,
    el('h2', { text: 'Settings' }),
    settings,
    el('h2', { text: 'Points (as bas sweep shows them)' }),
    text,
    el('h2', { text: 'Runs' }),
    points,
  );
  const load = async (): Promise<void> => {
    try {
      const s = await source.sweep(id);
      text.textContent = s.text ?? '(no point has rollouts yet)';
      // A sweep's page: its figures and points, then the text folded (its settings are in its header).
      if (s.sections && !source.pages)
        return void clear(app).append(...sectionsView(s.sections), folded('As bas sweep prints it', text));
      // bas view, a bundle: the tables of the --html page above its runs, each linked.
      if (s.sections) clear(tables).append(...sectionsView(s.sections));
      const running = s.points.some((p) => p.status === 'running');
      head.textContent = `models: ${s.models.join(', ')} · ${s.points.length} point(s)${s.created_at ? ` · created ${s.created_at}` : ''}${running ? ' · running' : ''}`;
      clear(settings).append(pairsTable(s.settings, { id: 'sweep-settings' }));
      clear(bodyOf(points)).append(...s.points.map(pointRow));
      if (running && source.live) timers.later(load, 1500);
    } catch (err) {
      head.append(problem(err));
    }
  };
  void load();
}
