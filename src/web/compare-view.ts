/**
 * Two runs: the paired figures as `bas compare` prints them (the same code), then the diff
 * of the rollouts both hold, those whose outcome flipped first (display/diff.ts), each opened
 * side by side with both ledgers marked.
 */
import { sideOutcome, type DiffAnswer, type DiffSide } from '../display/diff.js';
import { fmt, int, signedFmt } from '../display/format.js';
import { idPath, routeHash, type Pair, type Route } from '../display/route.js';
import { bodyOf, clear, el, problem, table } from './dom.js';
import { rolloutPanel } from './rollout-view.js';
import type { Source } from './source.js';

type CompareRoute = Extract<Route, { view: 'compare' }>;

function sideText(s: DiffSide): string {
  return s.errored ? sideOutcome(s) : `${fmt(s.reward)} · ${sideOutcome(s)}`;
}

function diffTable(r: CompareRoute, d: DiffAnswer): HTMLElement {
  const t = table(['task', 'rollout', 'A', 'B', 'B − A', 'what flipped', ''], { id: 'diff-list' });
  for (const row of d.rows) {
    const open: Pair = { index: row.index, rollout: row.rollout };
    const href = routeHash({ ...r, open });
    bodyOf(t).append(
      el('tr', { 'data-index': row.index, 'data-rollout': row.rollout, cls: row.flips.length ? 'flipped' : null }, [
        el('td', { text: row.index }),
        el('td', { text: row.rollout }),
        el('td', { text: sideText(row.a) }),
        el('td', { text: sideText(row.b) }),
        el('td', { text: signedFmt(row.delta) }),
        el('td', { cls: 'text wrap', text: row.flips.join('; ') }),
        el('td', null, [el('a', { href, text: 'side by side' })]),
      ]),
    );
  }
  return t;
}

function diffSummary(d: DiffAnswer): string {
  if (d.refused !== null) return `Nothing to diff: ${d.refused}.`;
  const shown = d.rows.length < d.changed ? `; the first ${int(d.rows.length)} are listed` : '';
  return (
    `${int(d.shared)} rollout(s) in both runs (${int(d.only_a)} only in A, ${int(d.only_b)} only in B): ` +
    `${int(d.flipped)} flipped, ${int(d.changed)} changed at all${shown}. Flipped first: the BAS right ↔ wrong or an error ` +
    `appearing or going, then a fault code newly missed or wrongly flagged (gained) or no longer (lost), then by how far the reward moved.`
  );
}

/** One rollout of both runs, side by side. */
async function sideBySide(box: HTMLElement, source: Source, r: CompareRoute, p: Pair): Promise<void> {
  const sides: Array<[string, string, string]> = [
    [r.a, 'side-a', 'A'],
    [r.b, 'side-b', 'B'],
  ];
  const cols = sides.map(([id, dom, label]) => el('div', { id: dom }, [el('h2', { text: `${label}: ${id}` })]));
  clear(box).append(el('div', { cls: 'side' }, cols));
  await Promise.all(
    sides.map(async ([id], i) => {
      try {
        cols[i]!.append(rolloutPanel(await source.rollout(id, p)));
      } catch (err) {
        cols[i]!.append(problem(err));
      }
    }),
  );
  box.scrollIntoView?.({ block: 'start' });
}

/** Links to the other pairs a page holds (a comparison of three runs or more). */
function otherPairs(r: CompareRoute, pairs: Array<[string, string]>): HTMLElement | null {
  if (pairs.length < 2) return null;
  return el(
    'p',
    { cls: 'small' },
    pairs.map(([a, b]) => {
      const here = a === r.a && b === r.b;
      const text = `${b} against ${a}`;
      return el('span', null, [
        here ? el('b', { text }) : el('a', { href: routeHash({ view: 'compare', a, b, open: null, page: 0 }), text }),
        ' · ',
      ]);
    }),
  );
}

/**
 * Shows runs `r.a` and `r.b` compared in `app`. On a comparison's page (`pairs`: the pairs it
 * holds), whose tables the server drew, only the diff and the rollouts side by side.
 */
export async function compareView(
  app: HTMLElement,
  source: Source,
  r: CompareRoute,
  pairs: Array<[string, string]> | null = null,
): Promise<void> {
  const diff = el('div', { id: 'diff' });
  const side = el('div', { id: 'side' });
  if (pairs !== null) {
    clear(app).append(otherPairs(r, pairs) ?? '', diff, side);
    if (r.open) void sideBySide(side, source, r, r.open);
    return showDiff(diff, source, r);
  }
  const text = el('pre', { id: 'comparison', text: 'pairing the two runs…' });
  clear(app).append(
    el('p', null, [el('a', { href: '#/', text: '← runs' })]),
    el('h1', null, [
      'A: ',
      el('a', { href: `#/run/${idPath(r.a)}`, text: r.a }),
      '  ·  B: ',
      el('a', { href: `#/run/${idPath(r.b)}`, text: r.b }),
    ]),
    el('h2', { text: 'Rollouts that changed, flipped first' }),
    diff,
    side,
    el('h2', { text: 'Paired figures (as bas compare shows them)' }),
    text,
  );
  if (r.open) void sideBySide(side, source, r, r.open);
  void showDiff(diff, source, r);
  try {
    text.textContent = (await source.compare(r.a, r.b)).text;
  } catch (err) {
    clear(text).append(problem(err));
  }
}

async function showDiff(box: HTMLElement, source: Source, r: CompareRoute): Promise<void> {
  try {
    const d = await source.diff(r.a, r.b);
    box.append(el('p', { cls: 'small', text: diffSummary(d) }), diffTable(r, d));
  } catch (err) {
    box.append(problem(err));
  }
}
