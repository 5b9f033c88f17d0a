/**
 * Provenance in every report: read from run.json, "unknown" where a folder of an older bas
 * lacks a field; compare says in its verdict when two runs were sampled differently; one
 * rollout of any run by `bas report DIR --rollout I:R`; the selection a page embeds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textWidth } from '../../src/report/fit-table.js';
import { DrillSelection } from '../../src/report/html/selection.js';
import { provenanceOf, samplingDifference } from '../../src/report/provenance.js';
import { bas } from '../support/cli.js';
import { makeRecord, SMALL_CONFIG, writeRun } from './make-run.js';

let root: string;
const SAMPLING = { temperature: 0, max_tokens: 4096, reasoning_effort: 'low', extra: {} };

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bas-provenance-'));
  const runJson = {
    bas_version: '0.4.0',
    provider: 'openrouter',
    base_url: 'https://user:secret@openrouter.ai/api/v1',
    sampling: SAMPLING,
    elapsed_s: 754.5,
    resumed_at: ['2026-09-12T11:00:00.000Z'],
  };
  writeRun(join(root, 'cold'), { n: 8, model: 'm/one', choose: () => 'oracle', runJson });
  writeRun(join(root, 'warm'), {
    n: 8,
    model: 'm/one',
    choose: (i) => (i < 4 ? 'oracle' : 'blanket'),
    runJson: { ...runJson, sampling: { ...SAMPLING, temperature: 0.7 } },
  });
  // A folder as bas 0.3 wrote it: no sampling, provider, wall time or bas version fields.
  writeRun(join(root, 'old'), {
    n: 8,
    model: 'm/old',
    choose: () => 'oracle',
    runJson: { bas_version: undefined, base_url: undefined },
  });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('provenance', () => {
  it('is read from run.json: endpoint host without credentials, sampling as sent, wall time over resumes', () => {
    const p = provenanceOf(JSON.parse(readFileSync(join(root, 'cold', 'run.json'), 'utf8')), 'm/one', SMALL_CONFIG);
    expect(p).toMatchObject({
      provider: 'openrouter',
      endpoint: 'openrouter.ai',
      sampling: SAMPLING,
      n: 8,
      rollouts: 1,
      bas_version: '0.4.0',
      made_by: 'bas eval',
      wall_time_s: 754.5,
      status: 'complete',
    });
  });

  it('a resumed run without a recorded wall time has none, not end minus start', () => {
    const run = { ...JSON.parse(readFileSync(join(root, 'cold', 'run.json'), 'utf8')), elapsed_s: undefined };
    expect(provenanceOf(run, 'm', null).wall_time_s).toBeNull();
    const fresh = { ...run, resumed_at: undefined };
    expect(provenanceOf(fresh, 'm', null).wall_time_s).toBe(300);
  });

  it('bas report: every provenance line in text and JSON; an old folder says unknown', async () => {
    const text = (await bas(['report', join(root, 'cold')])).stdout;
    expect(text).toMatch(/model: +m\/one · openrouter\.ai \(provider openrouter\)/);
    expect(text).toMatch(/sampling: +temperature 0 · max tokens 4096 · reasoning effort low/);
    expect(text).toMatch(/tasks: +8 tasks × 1 rollout · 12 rows, fault rate 0\.3, seed 7/);
    expect(text).toMatch(/versions: +bas 0\.4\.0 · generator \d+, prompt \d+ · made by bas eval/);
    expect(text).toMatch(/wall time: 12 min 35 s/);
    expect(text).not.toContain('secret');
    for (const l of text.split('\n')) expect(textWidth(l), l).toBeLessThanOrEqual(80);
    const old = (await bas(['report', join(root, 'old')])).stdout;
    expect(old).toMatch(/sampling: +unknown/);
    expect(old).toMatch(/versions: +bas unknown/);
    expect(old).toMatch(/model: +m\/old · unknown \(provider unknown\)/);
    const json = JSON.parse((await bas(['report', join(root, 'old'), '--json'])).stdout);
    expect(json.run.provenance).toMatchObject({ sampling: null, bas_version: null, provider: null, endpoint: null });
  });

  it('compare: a pair sampled differently says so in its verdict, in text and JSON', async () => {
    const r = await bas(['compare', join(root, 'cold'), join(root, 'warm'), '--resamples', '200']);
    expect(r.code).toBe(0);
    // The verdict cell wraps; read it back column by column.
    const verdict = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('│'))
      .map((l) => l.split('│').at(-2)!.trim())
      .join(' ');
    expect(verdict).toMatch(/A better; sampling differs \(temperature 0 vs 0\.7\)/);
    for (const l of r.stdout.split('\n')) expect(textWidth(l), l).toBeLessThanOrEqual(80);
    const c = JSON.parse(
      (await bas(['compare', join(root, 'cold'), join(root, 'warm'), '--json', '--resamples', '200'])).stdout,
    );
    expect(c.pairings[0].sampling_differs).toBe('temperature 0 vs 0.7');
    expect(c.pairings[0].verdict).toMatch(/sampling differs/);
    expect(c.runs[1].provenance.sampling.temperature).toBe(0.7);
    // The same sampling: the verdict says nothing of it.
    expect(samplingDifference(SAMPLING, { ...SAMPLING })).toBeNull();
    expect(samplingDifference(SAMPLING, null)).toMatch(/unknown/);
  });

  it("leaderboard --json and --markdown carry each run's provenance", async () => {
    const lb = JSON.parse((await bas(['leaderboard', root, '--json', '--resamples', '100'])).stdout);
    const runs = lb.groups.flatMap((g: { runs: unknown[]; unranked: unknown[] }) => [...g.runs, ...g.unranked]);
    expect(runs.map((r: { provenance: { sampling: unknown } }) => r.provenance.sampling)).toContainEqual(SAMPLING);
    const md = (await bas(['leaderboard', root, '--markdown', '--resamples', '100'])).stdout;
    expect(md).toContain('temperature 0.7 · max tokens 4096 · reasoning effort low');
    expect(md).toContain('openrouter.ai (provider openrouter)');
  });
});

describe('bas report --rollout', () => {
  it('prints one rollout: scores, figures, marked rows and the reply', async () => {
    const r = await bas(['report', join(root, 'warm'), '--rollout', '5:0']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rollout: +task 5, rollout 0 of/);
    expect(r.stdout).toContain('BAS figures');
    expect(r.stdout).toMatch(/wrong +\w+/);
    expect(r.stdout).toContain('<answer>');
    for (const l of r.stdout.split('\n').filter((x) => /^[┌│├└]/.test(x))) expect(textWidth(l)).toBeLessThanOrEqual(80);
  });

  it('--json gives the named fields, the expected key and the ledger rows', async () => {
    const r = JSON.parse((await bas(['report', join(root, 'warm'), '--rollout', '2', '--json'])).stdout);
    const x = r.rollouts[0];
    expect(x).toMatchObject({ index: 2, rollout: 0, reward: 1, error_type: null });
    expect(x.task.rows).toHaveLength(12);
    expect(Object.keys(x.task.expected_bas)).toEqual(['G1', '1A', '1B', 'net']);
    expect(typeof x.task.rows[0].category).toBe('string');
  });

  it.each([
    [['--rollout', '99:0'], /has no rollout 99:0/],
    [['--rollout', '1:x'], /--rollout must be INDEX:ROLLOUT/],
    [['--rollout', '-1'], /--rollout must be INDEX:ROLLOUT/],
  ])('bad %j: one line, exit 2', async (args, message) => {
    const r = await bas(['report', join(root, 'warm'), ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('with --html, the rollout asked for is embedded in the page', async () => {
    const html = join(root, 'page.html');
    expect((await bas(['report', join(root, 'warm'), '--html', html, '--rollout', '7:0'])).code).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain('"asked for"');
  });
});

describe('the page selection', () => {
  it('a later line for a pair replaces the earlier in every list', () => {
    const sel = new DrillSelection([[0, 0]]);
    sel.add(makeRecord(SMALL_CONFIG, 0, 0, 'm', { error: 'timeout' }));
    sel.add(makeRecord(SMALL_CONFIG, 1, 0, 'm', 'blanket'));
    sel.add(makeRecord(SMALL_CONFIG, 0, 0, 'm', 'oracle'));
    const chosen = sel.selected();
    expect(chosen.map((c) => [c.record.index, c.record.error === null])).toEqual([
      [0, true],
      [1, true],
    ]);
    expect(chosen[0]!.reasons).toContain('asked for');
    expect(chosen[0]!.reasons.some((r) => r.startsWith('errored'))).toBe(false);
    expect(sel.missing()).toEqual([]);
  });

  it('stays bounded however many rollouts it sees', () => {
    const sel = new DrillSelection();
    const rec = [
      makeRecord(SMALL_CONFIG, 0, 0, 'm', 'blanket'),
      makeRecord(SMALL_CONFIG, 1, 0, 'm', 'oracle'),
      makeRecord(SMALL_CONFIG, 2, 0, 'm', { error: 'timeout' }),
    ];
    for (let i = 0; i < 30_000; i++) sel.add({ ...rec[i % 3]!, index: i });
    expect(sel.selected().length).toBeLessThanOrEqual(20 + 10 + 50 + 5 + 10);
  });
});

describe('run.json fields older folders lack', () => {
  it('a run.json with no sampling key reads as unknown, not as "not sent"', async () => {
    const dir = join(root, 'old');
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    delete run.sampling;
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    expect((await bas(['report', dir])).stdout).toMatch(/sampling: +unknown/);
  });
});
