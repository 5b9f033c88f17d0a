/**
 * `bas compare --columns LIST`: one table of the named columns, in their order, in the text
 * (within 80 columns) and on the HTML page; JSON keeps everything; a name it does not know is
 * refused in one line, naming the allowed ones.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textWidth } from '../../src/report/fit-table.js';
import { bas, tempDir } from '../support/cli.js';

let root: string;
const runs: string[] = [];

beforeAll(async () => {
  root = tempDir('bas-compare-columns-');
  for (const m of ['oracle', 'silent', 'blanket']) {
    const dir = join(root, m);
    const r = await bas(['eval', '-m', `builtin:${m}`, '-n', '12', '--num-transactions', '12', '--output', dir]);
    expect(r.code, r.stderr).toBe(0);
    runs.push(dir);
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The head cells of the first table of `text` (its first line of heads). */
function heads(text: string): string[] {
  const line = text.split('\n').find((l) => l.startsWith('│'))!;
  return line
    .split('│')
    .slice(1, -1)
    .map((c) => c.trim());
}

describe('bas compare --columns', () => {
  it('prints one table of the chosen columns, in their order, with the numbers of --json', async () => {
    const cols = ['run', 'reward', 'bas_correct', 'vs_a'];
    const r = await bas(['compare', ...runs, '--columns', cols.join(','), '--resamples', '500']);
    expect(r.code, r.stderr).toBe(0);
    expect(heads(r.stdout)).toEqual(['run', 'reward', 'bas_correct', 'reward − A [95% CI]']);
    for (const l of r.stdout.split('\n')) expect(textWidth(l)).toBeLessThanOrEqual(80);
    // Only these columns: no default tables.
    expect(r.stdout).not.toContain('fault_precision');
    expect(r.stdout).toContain('paired differences against the baseline A');
    const j = JSON.parse((await bas(['compare', ...runs, '--json', '--resamples', '500'])).stdout);
    const reward = j.runs[1].measures.reward;
    expect(r.stdout).toContain(reward.mean.toFixed(3));
    expect(r.stdout).toContain(`[${reward.ci95[0].toFixed(3)}, ${reward.ci95[1].toFixed(3)}]`);
    const diff = j.pairings[1].diff;
    const signed = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(3)}`;
    expect(r.stdout).toContain(`${signed(diff.mean)} `);
    expect(r.stdout).toContain(`[${signed(diff.ci95[0])}, ${signed(diff.ci95[1])}]`);
    expect(r.stdout).toMatch(/│ A +│.*│ baseline/);
  });

  it('chooses the HTML page’s runs table too; JSON keeps everything', async () => {
    const html = join(root, 'c.html');
    const cols = 'name,folder,fault_audit,vs_a_errors_as_zero';
    const r = await bas(['compare', ...runs, '--columns', cols, '--html', html, '--json', '--resamples', '200']);
    expect(r.code, r.stderr).toBe(0);
    const page = readFileSync(html, 'utf8');
    const table = page.split('<h2>Runs</h2>')[1]!.split('</table>')[0]!;
    const th = [...table.matchAll(/<th(?: [^>]*)?>(.*?)<\/th>/g)].map((m) => m[1]!.replace(/\u200b/g, ''));
    expect(th).toEqual(['name', 'folder', 'fault_audit', 'reward − A (errors as 0)']);
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j.runs[0].measures)).toContain('fault_precision');
  });

  it('refuses a column it does not know, in one line naming the allowed ones', async () => {
    const r = await bas(['compare', ...runs.slice(0, 2), '--columns', 'run,rewardx']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--columns must be one of run, name, folder');
    expect(r.stderr).toContain('got "rewardx"');
  });
});
