/**
 * The command a stopped run prints to continue it works as printed: it carries every endpoint
 * flag a resume must be given again (the key variable by name, never its value), and no more
 * (issue 26, resume and reproducibility).
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { bas, readResults, serve, tempDir, type Served } from '../support/cli.js';
import { commandWords, resumed, shellWords } from '../support/shell-words.js';
import { gatedServer, type GatedServer } from '../support/gated-server.js';
import { loadProviders } from '../../src/settings/providers.js';
import { flagsToConfirm, unconfirmedPlanEndpoint } from '../../src/settings/resume-trust.js';
import { resumeCommand } from '../../src/settings/resume-command.js';
import { shellWord } from '../../src/display/format.js';
import { resolvePlan } from '../../src/settings/plan.js';
import { settingsForRunJson } from '../../src/settings/settings.js';
import { writeRun } from '../report/make-run.js';

const KEY = 'sk-bas-hint-SECRET-5c20';
const gates: GatedServer[] = [];
const servers: Served[] = [];
afterAll(async () => {
  await Promise.all([...gates.map((g) => g.close()), ...servers.map((s) => s.stop())]);
});

async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 5));
}

describe('the resume command a stop prints', () => {
  it('runs as printed: the URL and the key variable by name, and the run finishes', async () => {
    const gate = await gatedServer(3);
    gates.push(gate);
    const dir = join(tempDir(), 'a run');
    const stop = new AbortController();
    const env = { HINT_KEY: KEY };
    const first = bas(
      ['eval', '-m', 'm', '--base-url', gate.url, '--api-key-var', 'HINT_KEY', '--output', dir, '--no-progress'].concat(
        ['-n', '12', '-c', '2'],
      ),
      { env, stop: stop.signal },
    );
    const file = join(dir, 'results.jsonl');
    await until(() => existsSync(file) && readFileSync(file, 'utf8').split('\n').length > 3);
    stop.abort('SIGINT');
    const r = await first;
    expect(r.code).toBe(130);
    expect(r.stderr).not.toContain(KEY);
    const printed = /continue with (bas eval .*)$/m.exec(r.stderr)?.[1];
    expect(printed).toBe(`bas eval --resume '${dir}' --base-url ${gate.url} --api-key-var HINT_KEY`);

    gate.release();
    const words = shellWords(printed!);
    expect(words.slice(0, 4)).toEqual(['bas', 'eval', '--resume', dir]);
    const again = await bas([...words.slice(1), '--no-progress'], { env });
    expect(again.stderr).toMatch(/^bas: resuming .*: \d+ of 12 rollouts to run\n/);
    expect(again.code).toBe(0);
    expect(readResults(dir)).toHaveLength(12);
  });

  it('is the bare command for a built-in model, which sends nothing anywhere', () => {
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
    const s = resolvePlan({ model: 'builtin:oracle', apiKeyVar: 'HOME' }, null, '', env);
    expect(resumeCommand('runs/x', s, env)).toBe('bas eval --resume runs/x');
  });

  it("names the user's own provider file again when the run's provider is only there", () => {
    const dir = tempDir();
    const file = join(dir, 'mine.toml');
    writeFileSync(file, '[mine]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_var = "MINE_KEY"\n');
    const env = {};
    const s = resolvePlan({ model: 'm', provider: 'mine', providers: file }, null, '', env);
    expect(resumeCommand('runs/x', s, env)).toBe(`bas eval --resume runs/x --providers ${file}`);
  });
});

describe('flagsToConfirm', () => {
  const env = {};
  const registry = loadProviders(null, env);
  const prime = registry.get('prime')!;

  it('asks for nothing where the registry or the defaults vouch for the endpoint', () => {
    expect(
      flagsToConfirm({ baseURL: 'https://api.openai.com/v1', apiKeyVar: 'OPENAI_API_KEY' }, registry, env),
    ).toEqual([]);
    expect(flagsToConfirm({ baseURL: prime.baseURL, apiKeyVar: prime.apiKeyVar }, registry, env)).toEqual([]);
  });

  it('asks for the URL of an unknown host; the default key variable then needs no flag', () => {
    expect(flagsToConfirm({ baseURL: 'http://127.0.0.1:9/v1', apiKeyVar: 'OPENAI_API_KEY' }, registry, env)).toEqual([
      '--base-url',
      'http://127.0.0.1:9/v1',
    ]);
  });

  it('asks for the key variable a known host is not paired with', () => {
    expect(flagsToConfirm({ baseURL: prime.baseURL, apiKeyVar: 'HOME' }, registry, env)).toEqual([
      '--api-key-var',
      'HOME',
    ]);
  });
});

describe('shellWord', () => {
  it('quotes what a shell would split or expand, and nothing else', () => {
    expect(shellWord('runs/2026-12-04T05-00-00Z-openai_gpt-5')).toBe('runs/2026-12-04T05-00-00Z-openai_gpt-5');
    expect(shellWord('http://127.0.0.1:8080/v1')).toBe('http://127.0.0.1:8080/v1');
    expect(shellWord("my runs/it's $HOME")).toBe(`'my runs/it'\\''s $HOME'`);
    expect(shellWords(shellWord("my runs/it's $HOME"))).toEqual(["my runs/it's $HOME"]);
  });
});

describe('after a kill (issue 36, resume details)', () => {
  it("bas report's hint carries the endpoint flags the resume needs", async () => {
    const dir = join(tempDir(), 'killed');
    writeRun(dir, {
      n: 4,
      model: 'm',
      choose: () => 'oracle',
      status: 'running',
      runJson: { api_key_var: 'HINT_KEY', n: 8 },
    });
    const notes: string[] = JSON.parse((await bas(['report', dir, '--json'])).stdout).notes;
    expect(notes.join('\n')).toContain(
      `\`bas eval --resume ${dir} --base-url http://127.0.0.1:1/v1 --api-key-var HINT_KEY\` finishes it`,
    );
  });

  it('a resume keeps --cache: run.json holds its folder (absolute), and the resumed plan answers from it', () => {
    const env = { HINT_KEY: KEY };
    const flags = { model: 'm', baseUrl: 'http://127.0.0.1:9/v1', apiKeyVar: 'HINT_KEY', cache: 'some/cache' };
    const first = resolvePlan(flags, null, '', env);
    const saved = settingsForRunJson(first.settings);
    expect(saved.cache).toBe(resolve('some/cache'));
    const resumed = resolvePlan({ baseUrl: 'http://127.0.0.1:9/v1', apiKeyVar: 'HINT_KEY' }, null, '', env, {
      dir: 'runs/x',
      run: { ...saved, model: 'm', base_url: 'http://127.0.0.1:9/v1' },
      file: 'runs/x/run.json',
    });
    expect(resumed.target.kind === 'endpoint' && resumed.target.cache).toBe(resolve('some/cache'));
  });
});

const oracle = (dir: string, ...more: string[]) =>
  bas(['eval', '-m', 'builtin:oracle', '-n', '4', '--output', dir, '--no-progress', '--json', ...more]);

// Six of these used to be written by hand, with the folder bare and no endpoint flags.
describe('every other resume command bas prints', () => {
  it('names a folder that already holds a run as one word', async () => {
    const dir = join(tempDir(), 'a run');
    expect((await oracle(dir)).code).toBe(0);
    const again = await oracle(dir);
    expect(again.code).toBe(2);
    const at = again.stderr.indexOf('--resume ');
    expect(shellWords(again.stderr.slice(at).split(', or ')[0]!)[1]).toBe(dir);
  });

  it('names a finished run in the report command a resume with nothing to do prints', async () => {
    const dir = join(tempDir(), 'done run');
    expect((await oracle(dir)).code).toBe(0);
    const again = await bas(['eval', '--resume', dir, '--no-progress']);
    expect(again.code, again.stderr).toBe(0);
    const at = again.stderr.indexOf('bas report ');
    expect(at, again.stderr).toBeGreaterThanOrEqual(0);
    expect(shellWords(again.stderr.slice(at).split(' shows them')[0]!)).toEqual(['bas', 'report', dir]);
  });

  it('names a folder with no run.json in the command that begins it again', async () => {
    const dir = join(tempDir(), 'failed start');
    mkdirSync(dir);
    const r = await bas(['eval', '--resume', dir]);
    expect(r.code).toBe(2);
    const at = r.stderr.indexOf('--output ');
    expect(shellWords(r.stderr.slice(at).trim())).toEqual(['--output', dir]);
  });

  it("names a sweep plan's provider registry as one word when it must be given again", () => {
    const refusal = unconfirmedPlanEndpoint(
      { providers: 'my providers.toml' },
      null,
      {},
      loadProviders(null, {}),
      {},
      'sweep.json',
    );
    const at = refusal!.indexOf('--providers ');
    expect(shellWords(refusal!.slice(at).replace(/ again to use it$/, ''))).toEqual([
      '--providers',
      'my providers.toml',
    ]);
  });

  it('names a sweep folder that is not empty as one word', async () => {
    const dir = join(tempDir(), 'my sweep');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    const r = await bas(['sweep', '-m', 'builtin:oracle', '--max-tokens', '8,16', '-n', '2', '--output', dir]);
    expect(r.code).toBe(2);
    expect(resumed(commandWords(r.stderr, 'sweep')).dir).toBe(dir);
  });

  it('gives the merged folder of an incomplete merge as one word', async () => {
    const root = tempDir();
    for (const i of [1, 2]) {
      const r = await oracle(join(root, `shard ${i}`), '--shard', `${i}/3`);
      expect(r.code, r.stderr).toBe(0);
    }
    const merged = join(root, 'merged run');
    const m = await bas(['merge', join(root, 'shard 1'), join(root, 'shard 2'), '--output', merged, '--json']);
    expect(m.code, m.stderr).toBe(0);
    expect(resumed(commandWords(m.stderr, 'eval')).dir).toBe(merged);
  });

  it('gives the baseline of --against with a task missing, as one word', async () => {
    const base = join(tempDir(), 'base run');
    expect((await oracle(base)).code).toBe(0);
    const results = join(base, 'results.jsonl');
    const lines = readFileSync(results, 'utf8').trim().split('\n');
    writeFileSync(results, `${lines.filter((l) => JSON.parse(l).index !== 1).join('\n')}\n`);
    const r = await bas(['eval', '-m', 'builtin:oracle', '-n', '4', '--against', base, '--until', 'decided']);
    expect(r.code).toBe(2);
    expect(resumed(commandWords(r.stderr, 'eval')).dir).toBe(base);
  });

  it('gives a run that was not a batch its endpoint flags when --batch resumes it', async () => {
    const s = await serve(['--policy', 'oracle']);
    servers.push(s);
    const dir = join(tempDir(), 'plain run');
    const env = { env: { OPENAI_API_KEY: 'sk-test' } };
    const first = await bas(['eval', '-m', 'm', '--base-url', s.url, '-n', '2', '--output', dir, '--no-progress'], env);
    expect(first.code, first.stderr).toBe(0);
    const r = await bas(['eval', '--resume', dir, '--batch', '--base-url', s.url], env);
    expect(r.code).toBe(2);
    const { dir: named, flags } = resumed(commandWords(r.stderr, 'eval'));
    expect(named).toBe(dir);
    expect(flags.get('--base-url')).toBe(s.url);
  });
});
