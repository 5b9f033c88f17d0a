/**
 * GET /api/leaderboard answers with the tables of `bas leaderboard --html` (its sections) beside
 * the text and the groups' run ids: the figures left out in `bas view`, with a note on where
 * they are drawn, and kept for a bundle, whose page holds them as templates.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Figures } from '../../src/report/html/blocks.js';
import { Catalog } from '../../src/view/catalog.js';
import { leaderboardAnswer } from '../../src/view/leaderboard-api.js';
import { writeRun } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

type Answer = { text: string | null; sections?: Array<Array<Record<string, unknown>>> };

function twoRuns(): string {
  const root = tempDir('bas-view-board-');
  writeRun(join(root, 'a'), { n: 20, model: 'builtin:oracle', choose: () => 'oracle' });
  writeRun(join(root, 'b'), { n: 20, model: 'builtin:blanket', choose: () => 'blanket' });
  return root;
}

describe('/api/leaderboard', () => {
  it("holds the --html page's tables, with each run's provenance, and no figure", async () => {
    const answer = (await leaderboardAnswer(new Catalog(twoRuns()))) as Answer;
    const blocks = answer.sections!.flat();
    expect(blocks).toContainEqual({ h3: 'How each run was made' });
    expect(blocks.filter((b) => 'table' in b).length).toBeGreaterThanOrEqual(2);
    expect(blocks.some((b) => 'figures' in b)).toBe(false);
    expect(blocks.at(-1)).toEqual({ small: expect.stringContaining('--bundle') });
    expect(answer.text).toContain('builtin:oracle');
  });

  it('keeps the figures for a bundle, drawn into its templates', async () => {
    const figures = new Figures();
    const answer = (await leaderboardAnswer(new Catalog(twoRuns()), figures)) as Answer;
    const named = answer.sections!.flat().filter((b) => 'figures' in b) as Array<{ figures: number[] }>;
    expect(named.length).toBeGreaterThan(0);
    expect(figures.templates()).toContain('<svg');
  });

  it('makes the names in its tables safe, as the rest of the answer: no bidi override reaches the page', async () => {
    const root = twoRuns();
    writeRun(join(root, 'c'), { n: 20, model: 'evil\u202emodel\u200b', choose: () => 'oracle' });
    const answer = (await leaderboardAnswer(new Catalog(root))) as Answer;
    const text = JSON.stringify(answer.sections);
    // The name shown with its hidden characters as visible escapes; a head's wrap point kept.
    expect(text).toContain(JSON.stringify('evil\\u202emodel\\u200b'));
    expect(text).not.toContain('\u202e');
    expect(text).toContain('bas_\u200bcorrect');
  });

  it('has no sections when no run has a summary', async () => {
    const answer = (await leaderboardAnswer(new Catalog(tempDir('bas-view-board-empty-')))) as Answer;
    expect(answer.sections).toBeUndefined();
  });
});
