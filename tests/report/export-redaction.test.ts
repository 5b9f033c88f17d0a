/**
 * A key bas knows never reaches an export, however the run folder was written (an older bas,
 * or `bas score` of a batch output that echoed it): with OPENAI_API_KEY set, `report --html`,
 * `compare --html`, every leaderboard format and `bas view`'s answers show it redacted,
 * whole or split by a zero-width space (issue 36, defect 5). Each output passes the one
 * redaction: standard output in runCli, files in the one file writer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withStd } from '../../src/io/std.js';
import { Catalog } from '../../src/view/catalog.js';
import { rolloutAnswer, runAnswer, runsAnswer } from '../../src/view/api.js';
import { bas, tempDir } from '../support/cli.js';
import { writeRun } from './make-run.js';

const KEY = 'sk-live-0123456789abcdefXYZ';
const SPLIT = `${KEY.slice(0, 12)}\u200b${KEY.slice(12)}`;
const env = { OPENAI_API_KEY: KEY };

/** Whether `text` holds eight characters of the key in a row, hidden characters or their escapes skipped. */
function leaks(text: string): boolean {
  const seen = text.replace(/\u200b|\\u200b|&#8203;|&#x200b;/gi, '');
  for (let i = 0; i + 8 <= KEY.length; i++) if (seen.includes(KEY.slice(i, i + 8))) return true;
  return false;
}

/** Two runs whose model names, replies and error messages hold the key, one whole, one split. */
function runs(): { root: string; a: string; b: string } {
  const root = tempDir('bas-export-key-');
  const write = (name: string, key: string) => {
    const dir = join(root, name);
    writeRun(dir, {
      n: 6,
      model: `echo ${key}`,
      choose: (i) =>
        i === 0 ? { error: `provider said Bearer ${key}` } : i === 1 ? { reply: `key ${key}` } : 'oracle',
    });
    return dir;
  };
  return { root, a: write('a', KEY), b: write('b', SPLIT) };
}

describe('a known key in exports', () => {
  it('is redacted in report --html and --json, whole and split', async () => {
    const { root, a, b } = runs();
    for (const dir of [a, b]) {
      const html = join(root, `${dir.endsWith('a') ? 'a' : 'b'}.html`);
      const r = await bas(['report', dir, '--html', html, '--rollout', '0,1'], { env });
      expect(r.code).toBe(0);
      expect(leaks(readFileSync(html, 'utf8'))).toBe(false);
      const json = await bas(['report', dir, '--json'], { env });
      expect(leaks(json.stdout)).toBe(false);
    }
  });

  it('is redacted in compare --html and --json', async () => {
    const { root, a, b } = runs();
    const html = join(root, 'c.html');
    const r = await bas(['compare', a, b, '--html', html], { env });
    expect(r.code).toBe(0);
    expect(leaks(readFileSync(html, 'utf8'))).toBe(false);
    expect(leaks((await bas(['compare', a, b, '--json'], { env })).stdout)).toBe(false);
  });

  it('is redacted in every leaderboard format', async () => {
    const { root } = runs();
    const html = join(root, 'lb.html');
    const text = await bas(['leaderboard', root, '--html', html], { env });
    expect(text.code).toBe(0);
    expect(leaks(text.stdout)).toBe(false);
    expect(leaks(readFileSync(html, 'utf8'))).toBe(false);
    for (const format of ['--csv', '--latex', '--markdown', '--json']) {
      const r = await bas(['leaderboard', root, format], { env });
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(0);
      expect(leaks(r.stdout)).toBe(false);
    }
  });

  it("is redacted in bas view's answers: the run list, a run's report, a rollout", async () => {
    const { root } = runs();
    const std = { stdout: process.stdout, stderr: process.stderr, env: { ...env } };
    const answers: unknown[] = [];
    await withStd(std, async () => {
      const catalog = new Catalog(root);
      for (const id of ['a', 'b']) {
        const run = `run=${id}`;
        answers.push(await runAnswer(catalog, new URLSearchParams(run)));
        for (const i of [0, 1]) answers.push(await rolloutAnswer(catalog, new URLSearchParams(`${run}&index=${i}`)));
      }
      answers.push(await runsAnswer(catalog));
    });
    expect(answers.some((a) => JSON.stringify(a).includes('provider said'))).toBe(true);
    for (const a of answers) expect(leaks(JSON.stringify(a))).toBe(false);
  });
});
