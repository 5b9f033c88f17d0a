/**
 * The leaderboard as `bas view`'s GET /api/leaderboard answers it and as the page of
 * `bas leaderboard --html` embeds it: its text, and each group's runs by id (rank, name, why
 * not ranked). Every string is made terminal-safe, as every answer of the API.
 */
import type { BoardAnswer, BoardRun } from '../display/runs.js';
import { terminalText } from '../io/terminal-text.js';
import { rankText, type Leaderboard, type LeaderboardRun } from './leaderboard.js';

const row = (r: LeaderboardRun): BoardRun => ({
  rank: terminalText(rankText(r)),
  id: terminalText(r.dir),
  name: terminalText(r.name),
  why: r.unrankable === null ? null : terminalText(r.unrankable),
});

/** The answer for `lb`, printed as `text` (null: no run to rank), with the runs `leftOut` unread. */
export function leaderboardAnswerOf(lb: Leaderboard, text: string | null, leftOut: readonly string[]): BoardAnswer {
  return {
    text: text === null ? null : terminalText(text),
    by: lb.by,
    groups: lb.groups.map((g) => ({
      title: terminalText(g.title),
      runs: g.runs.map(row),
      unranked: g.unranked.map(row),
    })),
    left_out: leftOut.map((id) => terminalText(id)),
  };
}
