/**
 * `bas sweep` through the built CLI with the built-in policies: one eval per point into one
 * folder, resumable as a whole, the curve as text (80 columns), JSON and HTML, and the
 * folder read by `bas leaderboard`.
 */
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../support/closed-port.js';
import { textWidth } from '../../src/report/fit-table.js';
import { bas, startBas } from '../support/cli.js';
import { gatedServer } from '../support/gated-server.js';
import { curveChart, curveStyle } from '../../src/report/html/curves.js';

let root: string;
let sweepDir: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bas-sweep-'));
  sweepDir = join(root, 'sweep');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Point {
  num_transactions: number;
  fault_rate: number | null;
  completed: number;
  measures: Record<string, { mean: number; ci95: [number, number]; method: string }>;
}

describe('bas sweep', () => {
  it('runs one eval per point into sub-folders and prints the curve in 80 columns', async () => {
    const html = join(root, 'sweep.html');
    const r = await bas([
      'sweep',
      '--num-transactions',
      '12,24,60',
      '-m',
      'builtin:oracle',
      '-n',
      '8',
      '--output',
      sweepDir,
      '--no-progress',
      '--html',
      html,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(sweepDir).sort()).toEqual(['rows-12', 'rows-24', 'rows-60', 'sweep.json']);
    expect(r.stderr).toContain('[3/3] 60 rows');
    const tables = r.stdout.split('\n').filter((l) => /^[┌│├└]/.test(l));
    expect(tables.length).toBeGreaterThan(5);
    for (const l of tables) expect(textWidth(l)).toBeLessThanOrEqual(80);
    expect(r.stdout).toMatch(/│ +60 │ +1\.000 │/);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('class="band"');
    expect(page).toContain('rows per ledger (log scale)');
    // Each point is an ordinary run folder with its own ledger length.
    const run = JSON.parse(readFileSync(join(sweepDir, 'rows-24', 'run.json'), 'utf8'));
    expect(run.task.num_transactions).toBe(24);
    expect(run.status).toBe('complete');
  });

  it('--json: reward, bas_correct and fault_audit per point with bounded intervals', async () => {
    const r = await bas(['sweep', '--resume', sweepDir, '--json', '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { points: Point[] };
    expect(j.points.map((p) => p.num_transactions)).toEqual([12, 24, 60]);
    for (const p of j.points) {
      expect(p.completed).toBe(8);
      for (const m of ['reward', 'bas_correct', 'fault_audit']) {
        expect(p.measures[m]!.mean).toBe(1);
        expect(p.measures[m]!.ci95[0]).toBeGreaterThan(0.5);
        expect(p.measures[m]!.ci95[1]).toBe(1);
      }
    }
  });

  it('--html over one of its own inputs is refused, and the input kept', async () => {
    for (const target of [join(sweepDir, 'sweep.json'), join(sweepDir, 'rows-12', 'run.json')]) {
      const before = readFileSync(target, 'utf8');
      const r = await bas(['sweep', '--resume', sweepDir, '--no-progress', '--html', target]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--html .* is the input .*choose another file/);
      expect(readFileSync(target, 'utf8')).toBe(before);
    }
  });

  it('refuses a base URL carrying credentials, which sweep.json would keep', async () => {
    const r = await bas([
      'sweep',
      '--num-transactions',
      '12',
      '-m',
      'm',
      '-n',
      '2',
      '--base-url',
      'http://127.0.0.1:9/v1?api-key=SUPERSECRETVALUE123',
      '--output',
      join(root, 'cred'),
      '--no-progress',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('SUPERSECRET');
    expect(r.stderr).toMatch(/--base-url/);
    expect(existsSync(join(root, 'cred', 'sweep.json'))).toBe(false);
  });

  it('--resume finishes a cut-off point and starts a missing one, with the saved settings', async () => {
    rmSync(join(sweepDir, 'rows-60'), { recursive: true });
    const results = join(sweepDir, 'rows-24', 'results.jsonl');
    writeFileSync(results, readFileSync(results, 'utf8').split('\n').slice(0, 3).join('\n') + '\n');
    const r = await bas(['sweep', '--resume', sweepDir, '--json', '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('24 rows (resumed)');
    const j = JSON.parse(r.stdout) as { points: Point[] };
    expect(j.points.map((p) => p.completed)).toEqual([8, 8, 8]);
    expect(JSON.parse(readFileSync(join(sweepDir, 'rows-60', 'run.json'), 'utf8')).n).toBe(8);
  });

  it('a sweep folder is read by the leaderboard: one group per point, never ranked together', async () => {
    const r = await bas(['leaderboard', sweepDir, '--json', '--resamples', '200']);
    expect(r.code, r.stderr).toBe(0);
    const lb = JSON.parse(r.stdout) as { groups: Array<{ runs: unknown[] }> };
    expect(lb.groups).toHaveLength(3);
    expect(lb.groups.every((g) => g.runs.length === 1)).toBe(true);
  });

  it('the leaderboard of a sweep folder reads each point once: a warning of a point is printed once', async () => {
    const copy = join(root, 'sweep-warn');
    cpSync(sweepDir, copy, { recursive: true });
    // A record of a task past the run's 8 is set aside, with a warning, wherever it is read.
    const results = join(copy, 'rows-24', 'results.jsonl');
    const first = JSON.parse(readFileSync(results, 'utf8').split('\n')[0]!) as Record<string, unknown>;
    appendFileSync(results, `${JSON.stringify({ ...first, index: 99 })}\n`);
    const r = await bas(['leaderboard', copy, '--resamples', '200']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Difficulty curves');
    expect(r.stderr.match(/set aside 1 record/g)).toHaveLength(1);
  });

  it('--resume of a folder whose sweep.json is a link (to a device that never ends) stops in one line, without reading it', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'bas-sweep-zero-')), 'sweep');
    mkdirSync(dir);
    symlinkSync('/dev/zero', join(dir, 'sweep.json'));
    const r = await bas(['sweep', '--resume', dir, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/sweep\.json is a symbolic link: bas never follows a link/);
  });

  it('fault rates make a grid of points', async () => {
    const dir = join(root, 'grid');
    const r = await bas([
      'sweep',
      '--num-transactions',
      '12,24',
      '--fault-rate',
      '0.1,0.5',
      '-m',
      'builtin:raw-sums',
      '-n',
      '3',
      '--output',
      dir,
      '--no-progress',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { points: Point[] };
    expect(j.points.map((p) => `${p.num_transactions}/${p.fault_rate}`)).toEqual([
      '12/0.1',
      '12/0.5',
      '24/0.1',
      '24/0.5',
    ]);
  });

  it.each([
    [['sweep', '-m', 'builtin:oracle'], /needs --num-transactions/],
    [
      ['sweep', '--num-transactions', '12,3', '-m', 'builtin:oracle'],
      /--num-transactions must be an integer from 4 to 10000, got "3"/,
    ],
    [['sweep', '--num-transactions', '12,,24', '-m', 'builtin:oracle'], /comma-separated list/],
    [['sweep', '--num-transactions', '12,12', '-m', 'builtin:oracle'], /lists a value twice/],
    [
      ['sweep', '--num-transactions', '12', '--fault-rate', '2', '-m', 'builtin:oracle'],
      /--fault-rate must be a number from 0 to 1, got "2"/,
    ],
    [
      ['sweep', '--num-transactions', '12', '-m', 'builtin:oracle', '--output', 'SWEEP'],
      /exists and is not empty: continue it with bas sweep --resume/,
    ],
    [['sweep', '--resume', 'SWEEP', '-m', 'other'], /takes only --json, --csv, --html, --verbose, --no-progress/],
    [['sweep', '--resume', 'ROOT'], /is not a sweep folder/],
  ])('bad input %j: one line, exit 2', async (args, message) => {
    const r = await bas(args.map((a) => a.replace('SWEEP', sweepDir).replace('ROOT', root)));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('takes its plan back when eval refuses the first point, so the folder can be used again', async () => {
    const dir = join(root, 'refused');
    const r = await bas([
      'sweep',
      '--num-transactions',
      '12',
      '-m',
      'builtin:oracle',
      '--temperature',
      '9',
      '--output',
      dir,
      '--no-progress',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--temperature must be/);
    expect(existsSync(join(dir, 'sweep.json'))).toBe(false);
  });

  it('a sweep stopped at its first point by an unreachable endpoint is started again in the same folder, corrected', async () => {
    const dir = join(root, 'unreachable');
    const port = await closedPort();
    const args = ['sweep', '--num-transactions', '12,24', '-n', '2', '--output', dir, '--no-progress'];
    const first = await bas([...args, '-m', 'm', '--base-url', `http://127.0.0.1:${port}/v1`], {
      env: { OPENAI_API_KEY: 'k' },
    });
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/run the same bas sweep command with the cause fixed/);
    expect(existsSync(join(dir, 'sweep.json'))).toBe(false);
    const again = await bas([...args, '-m', 'builtin:oracle', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).points.map((p: Point) => p.completed)).toEqual([2, 2]);
  });
});

/** The CSV of --csv as objects (no field of these sweeps holds a comma or a quote). */
function csvRows(text: string): Array<Record<string, string>> {
  const [head, ...lines] = text.trimEnd().split('\n');
  const keys = head!.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [keys[i]!, v])));
}

interface GridPoint extends Point {
  model: string;
  n: number;
  errored: number;
  status: string;
  dir: string;
}

describe('bas sweep of several models', () => {
  let grid: string;
  let html: string;
  const models = ['builtin:oracle', 'builtin:silent'];

  it('refuses an unknown model among several before any run, writing nothing', async () => {
    const dir = join(root, 'unknown-second-model');
    const r = await bas([
      'sweep',
      '--num-transactions',
      '12,24',
      '-m',
      'builtin:oracle',
      '-m',
      'builtin:random',
      '-n',
      '4',
      '--output',
      dir,
      '--no-progress',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'bas: -m/--model: unknown built-in model "builtin:random" (choose builtin:oracle, builtin:raw-sums, builtin:blanket, builtin:silent, builtin:slips, builtin:share:P[:K])\n',
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('runs a 2-model × 2-point grid into one folder, quietly: one line per point and one table', async () => {
    grid = join(root, 'two-models');
    html = join(root, 'two-models.html');
    const r = await bas([
      'sweep',
      '--num-transactions',
      '12,24',
      '-m',
      models[0]!,
      '-m',
      models[1]!,
      '-n',
      '6',
      '--output',
      grid,
      '--no-progress',
      '--html',
      html,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(grid).sort()).toEqual([
      'builtin-oracle--rows-12',
      'builtin-oracle--rows-24',
      'builtin-silent--rows-12',
      'builtin-silent--rows-24',
      'sweep.json',
    ]);
    // Quiet: a line per point (model, point, n, reward, errors, time) and where the page went.
    const err = r.stderr.trimEnd().split('\n');
    expect(err.filter((l) => /^bas: \[\d\/4\]/.test(l))).toHaveLength(4);
    expect(err.length).toBeLessThanOrEqual(5);
    expect(err[0]).toMatch(
      /^bas: \[1\/4\] builtin:oracle, 12 rows: n 6\/6, reward 1\.000 \[0\.\d{3}, 1\.000\], 0 errored, (\d+ ms|under 1 ms|\d+\.\d s)$/,
    );
    // The time of a short point is in milliseconds, never "0.0 s".
    for (const l of err) expect(l).not.toMatch(/ 0\.0 s$/);
    expect(err[1]).toMatch(/^bas: \[2\/4\] builtin:silent, 12 rows: n 6\/6, reward 0\.\d{3} /);
    // One table per model, within 80 columns; the whole output stays short.
    expect(r.stdout).toContain('model builtin:oracle');
    expect(r.stdout).toContain('model builtin:silent');
    for (const l of r.stdout.split('\n')) expect(textWidth(l)).toBeLessThanOrEqual(80);
    expect(r.stdout.split('\n').length + err.length).toBeLessThan(40);
    const plan = JSON.parse(readFileSync(join(grid, 'sweep.json'), 'utf8'));
    expect(plan.models).toEqual(models);
    expect(plan.flags.model).toBeUndefined();
    const run = JSON.parse(readFileSync(join(grid, 'builtin-silent--rows-24', 'run.json'), 'utf8'));
    expect([run.model, run.task.num_transactions, run.status]).toEqual(['builtin:silent', 24, 'complete']);
    // What the numbers were measured with heads the text and the page: settings the points share, once.
    const tasks = `6 tasks × 1 rollout · fault rate ${run.task.fault_rate} · seed ${run.task.seed}`;
    expect(r.stdout).toContain(`\ntasks: ${tasks}\n`);
    expect(r.stdout).toContain('\nendpoint: built-in policy (no endpoint)\n');
    expect(r.stdout).toMatch(/\nsampling: temperature .+ · max tokens .+ · reasoning effort /);
    expect(r.stdout).toContain(
      `\nversions: bas ${run.bas_version} · generator ${run.generator}, prompt ${run.prompt_version}`,
    );
    const header = readFileSync(html, 'utf8').split('</header>')[0]!;
    expect(header).toContain(`<th>tasks</th><td>${tasks}</td>`);
    expect(header).toMatch(/<th>sampling<\/th><td>temperature /);
    expect(header).toContain(`<th>versions</th><td>bas ${run.bas_version} · `);
  });

  it("--verbose adds every point's own summary", async () => {
    const r = await bas(['sweep', '--resume', grid, '--verbose', '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').length).toBeGreaterThan(40);
  });

  it('--json and --csv give the same numbers', async () => {
    const j = await bas(['sweep', '--resume', grid, '--json', '--no-progress']);
    const c = await bas(['sweep', '--resume', grid, '--csv', '--no-progress']);
    expect(j.code, j.stderr).toBe(0);
    expect(c.code, c.stderr).toBe(0);
    const json = JSON.parse(j.stdout) as { models: string[]; points: GridPoint[] };
    expect(json.models).toEqual(models);
    const csv = csvRows(c.stdout);
    expect(csv).toHaveLength(4);
    expect(csv.map((row) => `${row.model}/${row.rows}`)).toEqual([
      'builtin:oracle/12',
      'builtin:oracle/24',
      'builtin:silent/12',
      'builtin:silent/24',
    ]);
    csv.forEach((row, i) => {
      const p = json.points[i]!;
      expect(row.model).toBe(p.model);
      expect(Number(row.rows)).toBe(p.num_transactions);
      expect(row.fault_rate).toBe('');
      // The settings of the point's run follow its figures.
      const run = JSON.parse(readFileSync(join(p.dir, 'run.json'), 'utf8'));
      expect([row.seed, row.endpoint, row.bas_version]).toEqual([String(run.task.seed), 'built-in', run.bas_version]);
      expect(row.temperature).toBe(run.sampling.temperature === null ? '' : String(run.sampling.temperature));
      expect(Object.keys(row)).toEqual(expect.arrayContaining(['max_tokens', 'reasoning_effort', 'extra_body']));
      expect([Number(row.n), Number(row.completed), Number(row.errored)]).toEqual([p.n, p.completed, p.errored]);
      for (const m of ['reward', 'bas_correct', 'fault_audit']) {
        expect(Number(row[m])).toBe(p.measures[m]!.mean);
        expect(Number(row[`${m}_ci_low`])).toBe(p.measures[m]!.ci95[0]);
        expect(Number(row[`${m}_ci_high`])).toBe(p.measures[m]!.ci95[1]);
      }
    });
    expect(json.points.find((p) => p.model === 'builtin:silent')!.measures.reward!.mean).toBeLessThan(1);
  });

  it('the page draws both models on shared axes, each with its own marker, dash and colour, and a legend', () => {
    const page = readFileSync(html, 'utf8');
    expect(page).not.toMatch(/<script src|<link|https?:\/\/(?!www\.w3\.org)/);
    const series = [
      ...page.matchAll(/<g class="series" data-series="(\d)" data-marker="([a-z-]+)" data-dash="([^"]+)">/g),
    ];
    // Three figures (reward, bas_correct, fault_audit), each with both models.
    expect(series).toHaveLength(6);
    const looks = new Set(series.map((m) => `${m[1]} ${m[2]} ${m[3]}`));
    expect(looks).toEqual(new Set(['0 circle solid', '1 square 7 4']));
    expect(page).toMatch(/stroke-dasharray="7 4"/);
    expect(page.match(/class="band"/g)!.length).toBe(6);
    expect(page.match(/<g class="legend"/g)!.length).toBe(6);
    for (const m of models) expect(page).toContain(`>${m}</tspan>`);
    expect(page).toContain('rows per ledger');
  });

  it('resumes after an interruption and finishes every point', async () => {
    // The endpoint answers the first point's 4 requests and holds the rest: the interruption
    // lands in the second point, however fast or slow the machine is.
    const gate = await gatedServer(4);
    const env = { OPENAI_API_KEY: 'sk-sweep-interrupted-0123' };
    try {
      const dir = join(root, 'interrupted');
      const child = startBas(
        [
          'sweep',
          '--num-transactions',
          '12,24',
          '-m',
          'model-a',
          '-m',
          'model-b',
          '-n',
          '4',
          '--base-url',
          gate.url,
          '--output',
          dir,
          '--no-progress',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], env },
      );
      let stderr = '';
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      // Stopped once the first point is done, while the second waits for its replies.
      await new Promise<void>((done) =>
        child.stderr!.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes('[1/4]')) done();
        }),
      );
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toMatch(/interrupted by SIGINT at .*: continue the whole sweep with bas sweep --resume/);
      // The command printed carries the endpoint the resume must be given again, and runs as printed.
      const printed = /continue the whole sweep with (bas sweep .*)$/m.exec(stderr)?.[1];
      expect(printed).toBe(`bas sweep --resume ${dir} --base-url ${gate.url}`);
      gate.release();
      const r = await bas([...printed!.split(' ').slice(1), '--json', '--no-progress'], { env });
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout) as { points: GridPoint[] };
      expect(j.points.map((p) => [p.model, p.num_transactions, p.completed, p.status])).toEqual([
        ['model-a', 12, 4, 'complete'],
        ['model-a', 24, 4, 'complete'],
        ['model-b', 12, 4, 'complete'],
        ['model-b', 24, 4, 'complete'],
      ]);
    } finally {
      gate.release();
      await gate.close();
    }
  });

  it('takes its models from models = [...] in its config file', async () => {
    const config = join(root, 'models.toml');
    writeFileSync(config, 'models = ["builtin:oracle", "builtin:blanket"]\nn = 2\n');
    const dir = join(root, 'from-config');
    const r = await bas([
      'sweep',
      `@${config}`,
      '--num-transactions',
      '12',
      '--output',
      dir,
      '--no-progress',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { models: string[]; points: GridPoint[] };
    expect(j.models).toEqual(['builtin:oracle', 'builtin:blanket']);
    expect(j.points.map((p) => p.completed)).toEqual([2, 2]);
    // bas eval runs one model: the list is refused there with a pointer.
    const e = await bas(['eval', `@${config}`, '--output', join(root, 'eval-models'), '--no-progress']);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/"models" is read by bas sweep only/);
  });

  it('reads and resumes a sweep folder written by bas 0.3 (one model, no models list)', async () => {
    const dir = join(root, 'old');
    const made = await bas([
      'sweep',
      '--num-transactions',
      '12,24',
      '-m',
      'builtin:oracle',
      '-n',
      '3',
      '--output',
      dir,
      '--no-progress',
    ]);
    expect(made.code, made.stderr).toBe(0);
    // sweep.json as 0.3 wrote it: the model among the flags, points without one.
    const plan = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8'));
    const old = {
      kind: 'bas-sweep',
      created_at: plan.created_at,
      model: 'builtin:oracle',
      points: plan.points.map((p: { num_transactions: number; fault_rate: number | null; folder: string }) => ({
        num_transactions: p.num_transactions,
        fault_rate: p.fault_rate,
        folder: p.folder,
      })),
      flags: { ...plan.flags, model: 'builtin:oracle' },
      words: [],
    };
    expect(old.points.map((p: { folder: string }) => p.folder)).toEqual(['rows-12', 'rows-24']);
    writeFileSync(join(dir, 'sweep.json'), JSON.stringify(old, null, 2));
    rmSync(join(dir, 'rows-24'), { recursive: true });
    const r = await bas(['sweep', '--resume', dir, '--json', '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { model: string; points: GridPoint[] };
    expect(j.model).toBe('builtin:oracle');
    expect(j.points.map((p) => [p.model, p.completed])).toEqual([
      ['builtin:oracle', 3],
      ['builtin:oracle', 3],
    ]);
  });

  it('bas leaderboard of several sweep folders overlays their curves', async () => {
    const other = join(root, 'other-sweep');
    const made = await bas([
      'sweep',
      '--num-transactions',
      '12,24',
      '-m',
      'builtin:blanket',
      '-n',
      '4',
      '--output',
      other,
      '--no-progress',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const page = join(root, 'overlay.html');
    const r = await bas(['leaderboard', grid, other, '--resamples', '200', '--html', page]);
    expect(r.code, r.stderr).toBe(0);
    // In text, a grid table per model after the ranking.
    for (const m of [...models, 'builtin:blanket']) expect(r.stdout).toContain(`model ${m}`);
    for (const l of r.stdout.split('\n')) expect(textWidth(l)).toBeLessThanOrEqual(80);
    const html = readFileSync(page, 'utf8');
    const looks = new Set(
      [...html.matchAll(/<g class="series" data-series="(\d)" data-marker="([a-z-]+)" data-dash="([^"]+)">/g)].map(
        (m) => `${m[2]} ${m[3]}`,
      ),
    );
    expect(looks.size).toBe(3);
    const j = JSON.parse((await bas(['leaderboard', grid, other, '--resamples', '200', '--json'])).stdout);
    expect(j.sweep.models).toEqual([...models, 'builtin:blanket']);
    expect(j.sweep.points).toHaveLength(6);
  });

  it('-m is repeatable for sweep only: repeated on eval it is an error', async () => {
    const r = await bas([
      'eval',
      '-m',
      'builtin:oracle',
      '-m',
      'builtin:silent',
      '-n',
      '2',
      '--output',
      join(root, 'twice'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/given twice/);
    expect(existsSync(join(root, 'twice'))).toBe(false);
    const same = await bas(['sweep', '--num-transactions', '12', '-m', 'builtin:oracle', '-m', 'builtin:oracle']);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/names "builtin:oracle" twice/);
  });
});

describe('curve charts', () => {
  it('tell seven series apart without colour: marker and dash pairs are all different', () => {
    const looks = Array.from({ length: 7 }, (_, i) => curveStyle(i)).map((s) => `${s.marker}/${s.dash}`);
    expect(new Set(looks).size).toBe(7);
    const svg = curveChart(
      [
        {
          name: 'a<b>',
          points: [
            { x: 12, mean: 0.5, ci: [0.4, 0.6] },
            { x: 24, mean: 0.25, ci: [0.2, 0.3] },
          ],
        },
        { name: 'c', points: [{ x: 12, mean: null, ci: null }] },
      ],
      { title: 't', xLabel: 'rows' },
    );
    expect(svg).toContain('a&lt;b&gt;');
    expect(svg).not.toContain('<b>');
    expect(svg.match(/<g class="legend"/g)).toHaveLength(2);
  });
});
