/**
 * The command a stopped run prints to continue it works as printed: it carries every endpoint
 * flag a resume must be given again (the key variable by name, never its value), and no more
 * (issue 26, resume and reproducibility).
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { bas, readResults, tempDir } from '../support/cli.js';
import { gatedServer, type GatedServer } from '../support/gated-server.js';
import { loadProviders } from '../../src/settings/providers.js';
import { flagsToConfirm } from '../../src/settings/resume-trust.js';
import { resumeCommand, shellWord } from '../../src/settings/resume-command.js';
import { resolvePlan } from '../../src/settings/plan.js';
import { settingsForRunJson } from '../../src/settings/settings.js';
import { writeRun } from '../report/make-run.js';

const KEY = 'sk-bas-hint-SECRET-5c20';
const gates: GatedServer[] = [];
afterAll(async () => {
  await Promise.all(gates.map((g) => g.close()));
});

async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 5));
}

/** The words of a command line as a POSIX shell splits them: bare words, backslashes, single quotes. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/(?:\\.|'[^']*'|[^\s'\\])+/g))
    words.push(m[0].replace(/\\(.)|'([^']*)'/g, (_, escaped?: string, quoted?: string) => escaped ?? quoted ?? ''));
  return words;
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
