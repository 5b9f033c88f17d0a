/**
 * `bas score` grades replies made elsewhere, so it does not know how they were sampled unless
 * told: its run folder then says unknown (never "not sent"), and a comparison with an eval says
 * the sampling is unknown; told with eval's sampling flags, it records them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';

let dir: string;
let tasks: string;
let replies: string;
let evalRun: string;

beforeAll(async () => {
  dir = tempDir();
  tasks = join(dir, 'tasks.jsonl');
  expect((await bas(['gen', '-n', '6', '-o', tasks])).code).toBe(0);
  replies = join(dir, 'replies.jsonl');
  writeFileSync(replies, [0, 1, 2, 3, 4, 5].map((index) => JSON.stringify({ index, reply: 'no answer' })).join('\n'));
  evalRun = join(dir, 'eval');
  const r = await bas(['eval', '-m', 'builtin:oracle', '-n', '6', '--temperature', '0', '--output', evalRun]);
  expect(r.code, r.stderr).toBe(0);
});

const score = (out: string, extra: string[] = []) =>
  bas(['score', '--tasks', tasks, '--replies', replies, '--output', out, '--max-error-rate', '1', ...extra]);

describe('bas score and sampling', () => {
  it('records no sampling when not told: reports and comparisons say unknown, not "not sent"', async () => {
    const out = join(dir, 'untold');
    expect((await score(out)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'))).not.toHaveProperty('sampling');
    const report = await bas(['report', out, '--json']);
    expect(JSON.parse(report.stdout).run.provenance.sampling).toBeNull();
    const cmp = await bas(['compare', evalRun, out, '--json', '--resamples', '100']);
    expect(cmp.code, cmp.stderr).toBe(0);
    const pairing = JSON.parse(cmp.stdout).pairings[0];
    expect(pairing.sampling_differs).toBe('sampling known vs unknown');
    expect(JSON.stringify(JSON.parse(cmp.stdout).pairings)).not.toContain('not sent');
  });

  it('a folder scored before 0.4.1 (every setting recorded as not sent) reads as unknown too', async () => {
    const out = join(dir, 'old');
    expect((await score(out)).code).toBe(0);
    const file = join(out, 'run.json');
    const info = JSON.parse(readFileSync(file, 'utf8'));
    info.sampling = { temperature: null, max_tokens: null, reasoning_effort: null, extra: {} };
    writeFileSync(file, JSON.stringify(info));
    const report = await bas(['report', out]);
    expect(report.stdout).toMatch(/\nsampling: +unknown\n/);
  });

  it("takes eval's sampling flags and records them; a like-for-like comparison then says nothing of sampling", async () => {
    const out = join(dir, 'told');
    const r = await score(out, ['--temperature', '0', '--sampling', '{"top_p": 0.9}']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).sampling).toEqual({
      temperature: 0,
      max_tokens: null,
      reasoning_effort: null,
      extra: { top_p: 0.9 },
    });
    const same = join(dir, 'told-plain');
    expect((await score(same, ['--temperature', '0'])).code).toBe(0);
    const cmp = await bas(['compare', evalRun, same, '--json', '--resamples', '100']);
    expect(JSON.parse(cmp.stdout).pairings[0].sampling_differs).toBeNull();
  });

  it('refuses a sampling flag without --output, which is where it is recorded', async () => {
    const r = await bas(['score', '--tasks', tasks, '--replies', replies, '--temperature', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'bas: --temperature, --max-tokens, --reasoning-effort, --sampling and --requests record how the replies were sampled in a run folder: give --output DIR too\n',
    );
  });

  // Issue 36: the replies of a batch engine answer a request file that says how they were
  // sampled; the run folder recorded "unknown" though the requests said temperature 0.
  it('with --requests, records the sampling the batch requests asked for', async () => {
    const requests = join(dir, 'requests.jsonl');
    const gen = await bas([
      'gen',
      '-n',
      '6',
      '--format',
      'batch',
      '-m',
      'gpt-x',
      '--temperature',
      '0',
      '--max-tokens',
      '500',
      '--sampling',
      '{"top_p": 0.9}',
      '-o',
      requests,
    ]);
    expect(gen.code, gen.stderr).toBe(0);
    const out = join(dir, 'from-requests');
    const r = await score(out, ['--requests', requests]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).sampling).toEqual({
      temperature: 0,
      max_tokens: 500,
      reasoning_effort: null,
      extra: { top_p: 0.9 },
    });
    const report = await bas(['report', out]);
    expect(report.stdout).toMatch(/\nsampling: +temperature 0/);
    // Requests sampled two ways are not one run's; nor are the flags given beside them.
    const mixed = join(dir, 'mixed.jsonl');
    const lines = readFileSync(requests, 'utf8').trim().split('\n');
    const other = JSON.parse(lines[1]!);
    other.body.temperature = 1;
    writeFileSync(mixed, [lines[0], JSON.stringify(other)].join('\n') + '\n');
    const bad = await score(join(dir, 'mixed'), ['--requests', mixed]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^bas: --requests: .*mixed\.jsonl:2 is sampled differently from line 1/);
    const both = await score(join(dir, 'both'), ['--requests', requests, '--temperature', '0']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give it or the sampling flags, not both/);
  });
});
