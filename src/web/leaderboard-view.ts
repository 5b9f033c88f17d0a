/**
 * The runs ranked as `bas leaderboard` ranks them: the tables of its --html page where the
 * answer has them, each group's runs linked to their pages where the source holds them, and
 * its table as it prints it.
 */
import { idPath } from '../display/route.js';
import type { LeaderboardAnswer } from './answers.js';
import { sectionsView } from './blocks-view.js';
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

/** `body` under a heading that opens it. */
export const folded = (title: string, body: HTMLElement): HTMLElement =>
  el('details', null, [el('summary', { text: title }), body]);

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
    // Links only where the source holds the runs' pages (bas view, a bundle; not a leaderboard's page).
    if (source.pages) for (const g of lb.groups) groups.append(el('h2', { text: `Runs: ${g.title}` }), groupTable(g));
    if (lb.left_out.length)
      groups.append(el('p', { cls: 'note', text: `Not read (no summary): ${lb.left_out.join(', ')}` }));
    // The tables and figures of the --html page, the links, then the text folded.
    if (lb.sections)
      clear(app).append(...sectionsView(lb.sections), groups, folded('As bas leaderboard prints it', text));
  } catch (err) {
    clear(text).append(problem(err));
  }
}
