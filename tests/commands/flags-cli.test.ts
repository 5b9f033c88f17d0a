/**
 * The declaration as a user meets it, through the built CLI: repeated flags, unknown flags,
 * help text, and output paths checked before any work (issue 16 §4).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';
import { closedPort } from '../support/closed-port.js';
import { COMMAND_NAMES } from '../../src/settings/command-names.js';

describe('a single-valued flag given twice is refused, naming it', () => {
  it.each([
    [['gen', '-n', '3', '-n', '4'], '-n is given twice ("3" and "4"): give it once'],
    [['gen', '-n', '3', '--num', '3'], '-n is given twice ("3" and "3"): give it once'],
    [['eval', '-m', 'A', '-m', 'B'], '-m/--model is given twice ("A" and "B"): give it once'],
    [
      ['sweep', '--num-transactions', '12', '--num-transactions', '24'],
      '--num-transactions is given twice ("12" and "24"): give it once',
    ],
    [['report', 'x', '--price-in', '1', '--price-in', '2'], '--price-in is given twice ("1" and "2"): give it once'],
    [['serve', '--port', '0', '--port', '1'], '--port is given twice ("0" and "1"): give it once'],
    [
      ['leaderboard', 'x', '--by', 'reward', '--by', 'bas_correct'],
      '--by is given twice ("reward" and "bas_correct"): give it once',
    ],
  ])('bas %j', async (args, message) => {
    const r = await bas(args);
    expect(r.stderr).toBe(`bas: ${message}\n`);
    expect(r.code).toBe(2);
  });
});

describe('usage errors point at the help of the command at hand', () => {
  it.each([
    [['eval', '--bogus'], "bas: unknown option '--bogus' (see bas eval --help)\n"],
    [['score', '--tasks', 't', '--replies', 'r', '--bogus'], "bas: unknown option '--bogus' (see bas score --help)\n"],
    [['--bogus'], "bas: unknown option '--bogus' (see bas --help)\n"],
    [['merge', 'a', 'b'], "bas: required option '--output <DIR>' not specified (see bas merge --help)\n"],
  ])('bas %j', async (args, message) => {
    const r = await bas(args);
    expect(r.stderr).toBe(message);
    expect(r.code).toBe(2);
  });
});

describe('help comes from the declaration', () => {
  const help = async (command: string) => (await bas([command, '--help'])).stdout.replace(/\s+/g, ' ');

  it('defaults are written one way, once', async () => {
    for (const c of COMMAND_NAMES) {
      const text = await help(c);
      expect(text).not.toMatch(/\(default [^:]/);
    }
    expect(await help('eval')).toContain('--output <DIR> run folder (default: runs/<UTC time>-<model>/)');
    expect((await help('eval')).match(/runs\/<UTC time>-<model>/g)).toHaveLength(1);
    expect(await help('gen')).toMatch(
      /-n, --num <N> number of tasks \(indices 0\.\.N-1\), 1\.\.10000000 \(default: 10\)/,
    );
    expect(await help('validate')).toMatch(/\(default: 60\)/);
    expect(await help('compare')).toContain('--resamples <B> bootstrap resamples, 100..1000000 (default: 10000)');
  });

  it('bas --help names every declared command', async () => {
    const listed = [...(await bas(['--help'])).stdout.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]);
    expect(listed.filter((c) => c !== 'help')).toEqual([...COMMAND_NAMES]);
  });

  it("bas check lists only the flags its one request uses, and still takes eval's others", async () => {
    const text = await help('check');
    for (const used of ['--model', '--seed', '--max-tokens', '--base-url', '--request-timeout', '--shard', '--json'])
      expect(text).toContain(`${used} `);
    const list = text.slice(0, text.indexOf('Taken but not used'));
    for (const unused of ['--num ', '--concurrency', '--output', '--no-progress', '--price-in', '--timeout <'])
      expect(list).not.toContain(unused);
    expect(text).toContain(
      "Taken but not used here, so that bas eval's command line runs as it is: -n, -r/--rollouts, -c/--concurrency, --timeout,",
    );
    // An eval command line runs with check in its place; its values are still checked.
    const r = await bas(['check', '-m', 'builtin:oracle', '-n', '30', '-c', '4', '--output', 'x', '--no-progress']);
    expect([r.code, r.stdout]).toEqual([0, 'bas check: builtin:oracle is built in: no endpoint, nothing to check\n']);
    expect((await bas(['check', '-m', 'builtin:oracle', '-c', '0'])).stderr).toMatch(/^bas: -c\/--concurrency must be/);
  });
});

describe('every output path is checked before any work', () => {
  it('sweep --html into its own folder is refused before any point runs', async () => {
    const root = tempDir();
    const dir = join(root, 'sweep');
    for (const html of [join(dir, 'sweep.json'), join(dir, 'rows-12', 'results.jsonl'), join(dir, 'page.html')]) {
      const r = await bas([
        'sweep',
        '-m',
        'builtin:oracle',
        '-n',
        '2',
        '--num-transactions',
        '12,24',
        '--output',
        dir,
        '--html',
        html,
        '--no-progress',
      ]);
      expect(r.stderr).toMatch(
        /^bas: --html .* is inside .*sweep, which this command writes itself: choose a file outside that folder\n$/,
      );
      expect(r.code).toBe(2);
      expect(existsSync(dir)).toBe(false);
    }
  });

  it('eval --output whose parent is a file is refused before --check sends its request', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'file'), 'x');
    const port = await closedPort();
    const r = await bas(
      [
        'eval',
        '-m',
        'some-model',
        '--base-url',
        `http://127.0.0.1:${port}/v1`,
        '--check',
        '--output',
        join(root, 'file', 'run'),
      ],
      { env: { OPENAI_API_KEY: 'sk-test' } },
    );
    expect(r.stderr).toBe(`bas: --output ${join(root, 'file', 'run')}: ${join(root, 'file')} is not a folder\n`);
    expect(r.code).toBe(2);
  });

  it.each([
    [
      ['gen', '-n', '1', '-o', '/nonexistent-dir/t.jsonl'],
      /^bas: -o\/--out \/nonexistent-dir\/t\.jsonl: the folder \/nonexistent-dir does not exist\n$/,
    ],
    [
      ['report', '/nonexistent-run', '--html', '/nonexistent-dir/r.html'],
      /^bas: --html \/nonexistent-dir\/r\.html: the folder \/nonexistent-dir does not exist\n$/,
    ],
    [['report', '/nonexistent-run', '--html', '/tmp'], /^bas: --html \/tmp is a folder; give a file name\n$/],
  ])('bas %j', async (args, message) => {
    const r = await bas(args);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
  });

  it('leaderboard --html over a run it reads is refused before any run is read', async () => {
    const run = join(tempDir(), 'run');
    mkdirSync(run);
    // A damaged run: reading it would fail first, if reading came first.
    writeFileSync(join(run, 'results.jsonl'), 'not json\n');
    const r = await bas(['leaderboard', run, '--html', join(run, 'results.jsonl')]);
    expect(r.stderr).toMatch(
      /^bas: --html .*results\.jsonl is the input .*: writing it would destroy what is being read; choose another file\n$/,
    );
    expect(r.code).toBe(2);
    expect(readdirSync(run)).toEqual(['results.jsonl']);
  });

  it('score --output is checked before the tasks are read', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'file'), 'x');
    const r = await bas([
      'score',
      '--tasks',
      '/nonexistent/t',
      '--replies',
      '/nonexistent/r',
      '--output',
      join(root, 'file', 'out'),
    ]);
    expect(r.stderr).toBe(`bas: --output ${join(root, 'file', 'out')}: ${join(root, 'file')} is not a folder\n`);
    expect(r.code).toBe(2);
  });
});
