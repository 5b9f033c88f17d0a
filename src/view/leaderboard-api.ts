/**
 * GET /api/leaderboard: the runs under the folder ranked as `bas leaderboard` ranks them (the
 * same code, its default measure, seed and resamples): its text, and each group's runs by id so
 * the page links them. Every run's whole summary is read for it (a comparison's pairing needs
 * each task's mean), one at a time, as the viewer reads them for a comparison.
 */
import { terminalText } from '../io/terminal-text.js';
import { buildLeaderboard, rankText, type LeaderboardRun } from '../report/leaderboard.js';
import { renderLeaderboard } from '../report/leaderboard-text.js';
import type { RunData } from '../report/read.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import { runsAnswer } from './api.js';
import type { Catalog } from './catalog.js';

const row = (r: LeaderboardRun) => ({
  rank: terminalText(rankText(r)),
  id: terminalText(r.dir),
  name: terminalText(r.name),
  why: r.unrankable === null ? null : terminalText(r.unrankable),
});

/** The leaderboard of every run under the folder whose summary can be read. */
export async function leaderboardAnswer(catalog: Catalog): Promise<unknown> {
  const list = (await runsAnswer(catalog)) as { runs: Array<{ id: string }> };
  const runs: RunData[] = [];
  const left: string[] = [];
  for (const { id } of list.runs) {
    const data = await (await catalog.run(id))?.wholeSummary();
    catalog.keepFew();
    // Named by its id under the folder, as every view names it.
    if (data) runs.push({ ...data, dir: id });
    else left.push(terminalText(id));
  }
  const { seed, resamples } = readFlags(COMMAND_FLAGS.leaderboard, {});
  const lb = buildLeaderboard(runs, { seed, resamples });
  return {
    text: runs.length ? terminalText(renderLeaderboard(lb)) : null,
    by: lb.by,
    groups: lb.groups.map((g) => ({
      title: terminalText(g.title),
      runs: g.runs.map(row),
      unranked: g.unranked.map(row),
    })),
    left_out: left,
  };
}
