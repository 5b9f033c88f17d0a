/**
 * GET /api/leaderboard: the runs under the folder ranked as `bas leaderboard` ranks them (the
 * same code, its default measure, seed and resamples): its text, each group's runs by id so
 * the page links them, and the tables of `bas leaderboard --html` (its sections). Every run's
 * whole summary is read for it (a comparison's pairing needs each task's mean), one at a time,
 * as the viewer reads them for a comparison.
 */
import { buildLeaderboard } from '../report/leaderboard.js';
import { leaderboardAnswerOf } from '../report/leaderboard-answer.js';
import { renderLeaderboard } from '../report/leaderboard-text.js';
import { Figures } from '../report/html/blocks.js';
import { leaderboardSections } from '../report/html/leaderboard-page.js';
import type { RunData } from '../report/read.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import type { Catalog } from './catalog.js';

/**
 * The leaderboard of every run under the folder whose summary can be read. Its figures go to
 * `figures` (a bundle holds them as templates); without it they are left out, with a note.
 */
export async function leaderboardAnswer(catalog: Catalog, figures: Figures | null = null): Promise<unknown> {
  const runs: RunData[] = [];
  const left: string[] = [];
  // The walk's ids only: the run list's rows (and the reads they start) are not needed here.
  for (const id of catalog.ids()) {
    const data = await (await catalog.run(id))?.wholeSummary();
    catalog.keepFew();
    // Named by its id under the folder, as every view names it.
    if (data) runs.push({ ...data, dir: id });
    else left.push(id);
  }
  const { seed, resamples } = readFlags(COMMAND_FLAGS.leaderboard, {});
  const lb = buildLeaderboard(runs, { seed, resamples });
  const answer = leaderboardAnswerOf(lb, runs.length ? renderLeaderboard(lb) : null, left);
  if (runs.length === 0) return answer;
  const sections = leaderboardSections(lb, null, null, figures);
  return { ...answer, sections: figures ? sections : Figures.omitted(sections, FIGURES_WHERE) };
}

/** Where the figures left out of `bas view`'s pages are drawn. */
export const FIGURES_WHERE = 'the pages of --html and in a bundle (bas view DIR --bundle FILE)';
