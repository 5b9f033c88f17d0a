import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATOR_VERSION } from '../../src/task/generate.js';
import { PROMPT_VERSION } from '../../src/task/prompt.js';
import { runPromptVersion } from '../../src/runfile/versions.js';
import { bas, tempDir } from '../support/cli.js';

/** Rewrites a run folder's run.json as an older bas would have left it (no generator recorded). */
function makeOld(dir: string): void {
  const file = join(dir, 'run.json');
  const info = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  delete info.generator;
  delete info.prompt_version;
  writeFileSync(file, JSON.stringify(info));
}

/** Rewrites a run folder's run.json as if its models had been shown another prompt of the same generator. */
function setPrompt(dir: string, version: number): void {
  const file = join(dir, 'run.json');
  const info = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  info.prompt_version = version;
  writeFileSync(file, JSON.stringify(info));
}

describe('runPromptVersion', () => {
  it.each<[string, Record<string, unknown> | null, number | null]>([
    ['a recorded version', { prompt_version: 2, generator: 3, indices: null }, 2],
    ['an eval run from before the field', { generator: 2, indices: null }, 1],
    ['a run older than the generator field', { indices: null }, 1],
    ['a scored run that says null', { prompt_version: null, generator: null, indices: null }, null],
    ['a scored run from before the field (contiguous indices)', { generator: null, indices: null }, null],
    ['a scored run with listed indices', { generator: null, indices: [0, 2] }, null],
    ['no run', null, null],
  ])('%s', (_name, run, expected) => {
    expect(runPromptVersion(run)).toBe(expected);
  });
});

describe('the task generator version', () => {
  it('is recorded in run.json, and runs of another generator are never mixed', async () => {
    const dir = tempDir();
    const run = async (name: string, extra: string[] = []) =>
      await bas([
        'eval',
        '-m',
        'builtin:oracle',
        '-n',
        '4',
        '--output',
        join(dir, name),
        '--no-progress',
        '--json',
        ...extra,
      ]);
    expect((await run('new')).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'new', 'run.json'), 'utf8'))).toMatchObject({
      generator: GENERATOR_VERSION,
      prompt_version: PROMPT_VERSION,
    });

    // --resume refuses a run whose tasks came from another generator.
    expect((await run('old')).code).toBe(0);
    makeOld(join(dir, 'old'));
    const resumed = await bas(['eval', '--resume', join(dir, 'old'), '--no-progress']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(
      new RegExp(`made with task generator 1, and this bas \\(.*\\) has generator ${GENERATOR_VERSION}`),
    );

    // merge refuses to join shards of different generators.
    expect((await run('s1', ['--shard', '1/2'])).code).toBe(0);
    expect((await run('s2', ['--shard', '2/2'])).code).toBe(0);
    makeOld(join(dir, 's2'));
    const merged = await bas(['merge', join(dir, 's1'), join(dir, 's2'), '--output', join(dir, 'm')]);
    expect(merged.code).toBe(2);
    expect(merged.stderr).toMatch(new RegExp(`task generator 1, .* with ${GENERATOR_VERSION}: their tasks differ`));

    // compare shows both, but does not pair tasks across generators.
    const compared = JSON.parse((await bas(['compare', join(dir, 'new'), join(dir, 'old'), '--json'])).stdout);
    expect(compared.pairings[0]).toMatchObject({ comparable: false });
    expect(compared.pairings[0].note).toMatch(new RegExp(`task generator 1 .* with ${GENERATOR_VERSION}`));
  });

  it('the prompt version is checked beside it: resume, merge and compare refuse to mix prompts', async () => {
    const dir = tempDir();
    const run = async (name: string, extra: string[] = []) =>
      await bas([
        'eval',
        '-m',
        'builtin:oracle',
        '-n',
        '4',
        '--output',
        join(dir, name),
        '--no-progress',
        '--json',
        ...extra,
      ]);
    expect((await run('new')).code).toBe(0);
    expect((await run('other')).code).toBe(0);
    setPrompt(join(dir, 'other'), PROMPT_VERSION + 1);
    const resumed = await bas(['eval', '--resume', join(dir, 'other'), '--no-progress']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(
      new RegExp(`made with prompt ${PROMPT_VERSION + 1}, and this bas \\(.*\\) has prompt ${PROMPT_VERSION}`),
    );

    expect((await run('s1', ['--shard', '1/2'])).code).toBe(0);
    expect((await run('s2', ['--shard', '2/2'])).code).toBe(0);
    setPrompt(join(dir, 's2'), PROMPT_VERSION + 1);
    const merged = await bas(['merge', join(dir, 's1'), join(dir, 's2'), '--output', join(dir, 'm')]);
    expect(merged.code).toBe(2);
    expect(merged.stderr).toMatch(/was made with prompt \d+, .* with \d+: their models were asked differently/);

    const compared = JSON.parse((await bas(['compare', join(dir, 'new'), join(dir, 'other'), '--json'])).stdout);
    expect(compared.pairings[0]).toMatchObject({ comparable: false });
    expect(compared.pairings[0].note).toMatch(new RegExp(`prompt ${PROMPT_VERSION + 1} and .* with ${PROMPT_VERSION}`));
  });
});
