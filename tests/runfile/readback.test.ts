/**
 * Nothing read back is trusted blindly: a record whose config would make the HTML report
 * build a ten-million-row ledger is refused in one line naming file and line; the drill-down
 * regenerates ledgers only for runs of this generator; a system error reaches the user as one
 * line with the path and the cause in words. Uses the built CLI (dist/).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { causeInWords, fileErrorMessage } from '../../src/errors/index.js';
import { buildDrillData } from '../../src/report/html/drilldown.js';
import { readRun } from '../../src/report/read.js';
import { GENERATOR_VERSION } from '../../src/task/generate.js';
import { bas, tempDir } from '../support/cli.js';
import { writeRun } from '../report/make-run.js';

async function oracleRun(n = 2): Promise<string> {
  const dir = join(tempDir(), 'run');
  expect((await bas(['eval', '-m', 'builtin:oracle', '-n', String(n), '--output', dir, '--no-progress'])).code).toBe(0);
  return dir;
}

describe('read-back bounds', () => {
  it('report --html of a line with num_transactions 10,000,000: one line naming file and line, exit 2, no page', async () => {
    const dir = await oracleRun();
    const file = join(dir, 'results.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const bad = JSON.parse(lines[1]!);
    bad.config.num_transactions = 10_000_000;
    lines[1] = JSON.stringify(bad);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const html = join(dir, '..', 'page.html');
    const r = await bas(['report', dir, '--html', html]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /results\.jsonl: line 2 is not a rollout record: "config\.num_transactions" must be an integer from 4 to 10000, got 10000000/,
    );
    expect(existsSync(html)).toBe(false);
  });

  it('the drill-down shows no ledger for a run of another generator, and the report says why', async () => {
    const dir = await oracleRun();
    const file = join(dir, 'run.json');
    writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), generator: GENERATOR_VERSION + 1 }),
    );
    const data = await readRun(dir, () => {});
    const drill = await buildDrillData(data);
    expect(drill.tasks).toEqual([]);
    expect(drill.rollouts.map((r) => r[0])).toEqual([-1, -1]);
    expect(data.notes.join(' ')).toMatch(/replies without ledgers/);
    // This generator's own runs keep their ledgers.
    const own = await buildDrillData(await readRun(await oracleRun(), () => {}));
    expect(own.tasks).toHaveLength(2);
  });
});

describe('fault ids read back from a reply', () => {
  it('the drill-down keeps every claimed id, "__proto__" and "constructor" included', async () => {
    const dir = join(tempDir(), 'run');
    const reply =
      '<answer>{"G1": "1", "1A": "1", "1B": "1", "net": "0", "faults": {"__proto__": ["duplicate_invoice"], "constructor": ["x"], "T01": ["__proto__"]}}</answer>';
    writeRun(dir, { n: 1, model: 'm', choose: () => ({ reply }) });
    const drill = await buildDrillData(await readRun(dir, () => {}));
    const given = JSON.parse(JSON.stringify(drill.rollouts[0]![10])) as Record<string, string[]>;
    expect(Object.keys(given).sort()).toEqual(['T01', '__proto__', 'constructor']);
    expect(given['__proto__']).toEqual(['duplicate_invoice']);
  });
});

describe('system errors in words', () => {
  it.each([
    ['ENOSPC', 'no space left on device'],
    ['ENOTDIR', 'a part of the path is not a folder'],
    ['EISDIR', 'it is a folder, not a file'],
    ['EACCES', 'permission denied'],
    ['EROFS', 'read-only file system'],
    ['ELOOP', 'too many symbolic links (a link loop?)'],
    ['EMFILE', 'too many open files in this process'],
  ])('%s reads "%s"', (code, words) => {
    const err = Object.assign(new Error(`${code}: internal text`), { code });
    expect(causeInWords(err)).toBe(words);
    expect(fileErrorMessage('write', '/x/y', err)).toBe(`cannot write /x/y: ${words}`);
  });

  it('an output under a file (ENOTDIR) or in a missing folder: one line with the path and the cause', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'afile'), 'x');
    const r = await bas(['gen', '-n', '1', '-o', join(dir, 'afile', 'tasks.jsonl')]);
    expect(r.code).toBe(2);
    // Checked before any task is generated (src/settings/output-paths.ts).
    expect(r.stderr).toBe(
      `bas: -o/--out ${join(dir, 'afile', 'tasks.jsonl')}: ${join(dir, 'afile')} is not a folder\n`,
    );
    const m = await bas(['gen', '-n', '1', '-o', join(dir, 'nope', 'tasks.jsonl')]);
    expect(m.stderr).toBe(
      `bas: -o/--out ${join(dir, 'nope', 'tasks.jsonl')}: the folder ${join(dir, 'nope')} does not exist\n`,
    );
  });
});

/** Rewrites the results file of `dir`, changing line `at` (0-based) with `edit`, or appending what `extra` gives. */
function editResults(dir: string, edit: (lines: Array<Record<string, unknown>>) => void): void {
  const file = join(dir, 'results.jsonl');
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  edit(lines);
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

async function shardRun(parent: string, i: number, of: number, n: number): Promise<string> {
  const dir = join(parent, `shard-${i}`);
  const r = await bas([
    'eval',
    '-m',
    'builtin:oracle',
    '-n',
    String(n),
    '--shard',
    `${i}/${of}`,
    '--output',
    dir,
    '--no-progress',
    '--json',
  ]);
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

describe('records that cannot belong to their run (issue 16 §6)', () => {
  it("merge refuses a record past the run's n with file and line, and writes nothing", async () => {
    const parent = tempDir();
    const [a, b] = [await shardRun(parent, 1, 2, 10), await shardRun(parent, 2, 2, 10)];
    // Two extra records of tasks 10 and 12: shard 1's slice by stride, but past n = 10.
    editResults(a, (lines) => lines.push({ ...lines[0]!, index: 10 }, { ...lines[0]!, index: 12 }));
    const out = join(parent, 'merged');
    const r = await bas(['merge', a, b, '--output', out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      `${join(a, 'results.jsonl')}: line 6 cannot belong to its run: task 10 is outside the run's 10 tasks (0 to 9)`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("merge refuses a record of another shard's slice", async () => {
    const parent = tempDir();
    const [a, b] = [await shardRun(parent, 1, 3, 9), await shardRun(parent, 2, 3, 9)];
    editResults(a, (lines) => lines.push({ ...lines[0]!, index: 2 })); // task 2 is shard 3's
    const r = await bas(['merge', a, b, '--output', join(parent, 'merged')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("line 4 cannot belong to its run: task 2 is not in the run's shard 1/3");
  });

  it('report sets aside a record past n and never claims more rollouts than the run has', async () => {
    const dir = await oracleRun(3);
    editResults(dir, (lines) => lines.push({ ...lines[0]!, index: 7 }, { ...lines[1]!, rollout: 4 }));
    const r = await bas(['report', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.summary.counts.rollouts).toBe(3);
    expect(r.stderr).toMatch(
      /set aside 2 records that cannot belong to this run \(first: line 4, task 7 is outside the run's 3 tasks/,
    );
    expect(report.notes.join(' ')).toMatch(/2 records of .*results\.jsonl cannot belong to this run and are left out/);
    const text = await bas(['report', dir]);
    expect(text.stdout).toMatch(/3 of 3 rollouts recorded/);
    expect(text.stdout).not.toMatch(/5 of 3/);
  });

  it('a resume leaves a record outside the run out of its summary', async () => {
    const dir = await oracleRun(3);
    editResults(dir, (lines) => {
      lines.push({ ...lines[0]!, index: 9 });
      lines[2] = {
        ...lines[2]!,
        reward: null,
        rewards: null,
        metrics: null,
        detail: null,
        error: { type: 'timeout', message: 'slow' },
      };
    });
    const r = await bas(['eval', '--resume', dir, '--no-progress', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(info.status).toBe('complete');
    expect(info.summary.counts).toMatchObject({ rollouts: 3, completed: 3, errored: 0 });
  });

  it.each([
    [
      'rewards.bas_correct',
      (l: Record<string, any>) => (l.rewards.bas_correct = 1.3),
      '"rewards.bas_correct" is 1.3, outside 0..1',
    ],
    [
      'metrics.num_flagged',
      (l: Record<string, any>) => (l.metrics.num_flagged = -1),
      '"metrics.num_flagged" is -1, not a count',
    ],
  ])('report refuses a score outside its range (%s) with file and line', async (_name, spoil, reason) => {
    const dir = await oracleRun(2);
    editResults(dir, (lines) => spoil(lines[1]!));
    const r = await bas(['report', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`results.jsonl: line 2 is not a rollout record: ${reason}`);
  });
});
