/** The runs ranked as `bas leaderboard` ranks them: its table as it prints it, then each group's runs linked to their pages. */
import { idPath } from '../display/route.js';
import type { LeaderboardAnswer } from './answers.js';
import { bodyOf, clear, el, problem, table } from './dom.js';
import type { Source } from './source.js';

function groupTable(g: LeaderboardAnswer['groups'][number]): HTMLElement {
  const t = table(['#', 'run', 'why not ranked']);
  for (const r of [...g.runs, ...g.unranked])
    bodyOf(t).append(
      el('tr', { 'data-run': r.id }, [
        el('td', { text: r.rank }),
        el('td', null, [el('a', { href: `#/run/${idPath(r.id)}`, text: r.name })]),
        el('td', { text: r.why ?? '' }),
      ]),
    );
  return t;
}

/** Shows the leaderboard in `app`. */
export async function leaderboardView(app: HTMLElement, source: Source): Promise<void> {
  const text = el('pre', { id: 'leaderboard', text: 'ranking the runs…' });
  const groups = el('div', { id: 'leaderboard-groups' });
  clear(app).append(
    el('p', null, [el('a', { href: '#/', text: '← runs' })]),
    el('h1', { text: 'Leaderboard' }),
    groups,
    el('h2', { text: 'As bas leaderboard shows it' }),
    text,
  );
  try {
    const lb = await source.leaderboard();
    text.textContent = lb.text ?? '(no run has a summary yet)';
    for (const g of lb.groups) groups.append(el('h2', { text: g.title }), groupTable(g));
    if (lb.left_out.length)
      groups.append(el('p', { cls: 'note', text: `Not read (no summary): ${lb.left_out.join(', ')}` }));
  } catch (err) {
    clear(text).append(problem(err));
  }
}
