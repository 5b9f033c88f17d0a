import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/settings/config.js';
import { loadProviders, PLACEHOLDER_KEY } from '../../src/settings/providers.js';
import { resolveEndpoint, resolveSettings } from '../../src/settings/settings.js';
import { apiKeyFor } from '../../src/endpoint/api-key.js';
import { runInfoFor } from '../../src/engine/session.js';
import { planOf } from '../../src/settings/plan.js';
import type { EvalSettings } from '../../src/settings/settings.js';

/** run.json as a new run of these settings would start it. */
const runInfoOf = (s: EvalSettings, at: Date) => runInfoFor(planOf(s).record, at);
function file(text: string): string {
  const f = join(mkdtempSync(join(tmpdir(), 'bas-prov-')), 'p.toml');
  writeFileSync(f, text);
  return f;
}

describe('the shipped provider registry', () => {
  const registry = loadProviders(null, {});
  it.each([
    ['openai', 'https://api.openai.com/v1', 'OPENAI_API_KEY', true],
    ['openrouter', 'https://openrouter.ai/api/v1', 'OPENROUTER_API_KEY', true],
    ['prime', 'https://api.pinference.ai/api/v1', 'PRIME_API_KEY', true],
    ['together', 'https://api.together.xyz/v1', 'TOGETHER_API_KEY', true],
    ['groq', 'https://api.groq.com/openai/v1', 'GROQ_API_KEY', true],
    ['deepseek', 'https://api.deepseek.com/v1', 'DEEPSEEK_API_KEY', true],
    ['fireworks', 'https://api.fireworks.ai/inference/v1', 'FIREWORKS_API_KEY', true],
    ['vllm', 'http://localhost:8000/v1', 'VLLM_API_KEY', false],
    ['ollama', 'http://localhost:11434/v1', 'OLLAMA_API_KEY', false],
    ['llamacpp', 'http://localhost:8080/v1', 'LLAMA_API_KEY', false],
    ['lmstudio', 'http://localhost:1234/v1', 'LMSTUDIO_API_KEY', false],
  ])('%s', (name, baseURL, apiKeyVar, keyRequired) => {
    expect(registry.get(name)).toMatchObject({ baseURL, apiKeyVar, keyRequired });
  });
});

describe('a user registry', () => {
  it('overrides fields of a shipped provider and adds new ones, from --providers or $BAS_PROVIDERS', () => {
    const own = file(
      '[vllm]\nbase_url = "http://gpu:8000/v1"\n[lab]\nbase_url = "https://lab.example/v1"\napi_key_var = "LAB_KEY"\n',
    );
    for (const registry of [loadProviders(own, {}), loadProviders(null, { BAS_PROVIDERS: own })]) {
      expect(registry.get('vllm')).toMatchObject({
        baseURL: 'http://gpu:8000/v1',
        apiKeyVar: 'VLLM_API_KEY',
        keyRequired: false,
      });
      expect(registry.get('lab')).toMatchObject({
        baseURL: 'https://lab.example/v1',
        apiKeyVar: 'LAB_KEY',
        keyRequired: true,
      });
      expect(registry.get('openai')?.baseURL).toBe('https://api.openai.com/v1');
    }
  });

  it.each([
    ['[x]\nbase_url = "https://x/v1"', /\[x\]: a new provider needs "base_url" and "api_key_var"/],
    ['[openai]\nurl = "https://x/v1"', /\[openai\]: unknown key "url"/],
    ['[openai]\nbase_url = "ftp://x"', /\[openai\] base_url must be an http\(s\) URL/],
    ['[openai]\napi_key_var = "sk-live-123"', /api_key_var must be the NAME of an environment variable/],
    ['[openai]\nkey_required = "no"', /"key_required" must be true or false/],
    ['openai = 3', /\[openai\] must be a table/],
    ['[a', /not valid TOML \(line 1/],
    // Names match without case, so two tables of one file differing only in case would merge in silence.
    [
      '[Lab]\nbase_url = "https://a/v1"\napi_key_var = "A"\n[lab]\nbase_url = "https://b/v1"',
      /p\.toml: \[Lab\] and \[lab\] name the same provider \(names are matched without case\): keep one table$/,
    ],
    ['[OpenAI]\nnotes = "x"\n[openai]\nnotes = "y"', /\[OpenAI\] and \[openai\] name the same provider/],
  ])('%s is refused', (text, message) => {
    expect(() => loadProviders(file(text), {})).toThrow(message);
  });

  it('a missing file is named', () => {
    expect(() => loadProviders('/nonexistent/p.toml', {})).toThrow(
      /cannot read --providers file \/nonexistent\/p.toml: no such file/,
    );
    expect(() => loadProviders(null, { BAS_PROVIDERS: '/nonexistent/q.toml' })).toThrow(
      /BAS_PROVIDERS file \/nonexistent\/q.toml/,
    );
  });
});

describe('choosing the endpoint', () => {
  it('--provider gives the base URL and key variable, over $OPENAI_BASE_URL', () => {
    const s = resolveSettings({ model: 'm', provider: 'groq' }, null, '', { OPENAI_BASE_URL: 'http://elsewhere/v1' });
    expect([s.provider, s.baseUrl, s.apiKeyVar, s.keyRequired]).toEqual([
      'groq',
      'https://api.groq.com/openai/v1',
      'GROQ_API_KEY',
      true,
    ]);
  });

  it('--base-url and --api-key-var still win', () => {
    const s = resolveSettings(
      { model: 'm', provider: 'groq', baseUrl: 'http://127.0.0.1:7/v1', apiKeyVar: 'MINE' },
      null,
      '',
      {},
    );
    expect([s.baseUrl, s.apiKeyVar, s.provider]).toEqual(['http://127.0.0.1:7/v1', 'MINE', null]);
  });

  it("a base URL on another host than the provider's drops its label, and its key unless named outright", () => {
    // The shipped config names prime: its key must not go to whatever --base-url points at.
    const config = loadConfigFile('configs/au-bas-reconciliation.toml');
    expect(() => resolveSettings({ baseUrl: 'http://u:secret@127.0.0.1:9/v1' }, config, 'x', {})).toThrow(
      "the base URL http://127.0.0.1:9/v1 is not on provider prime's host (https://api.pinference.ai), and bas sends prime's key (PRIME_API_KEY) only there: name the key this endpoint takes with --api-key-var NAME (config: api_key_var; --api-key-var PRIME_API_KEY sends that key anyway), or name no provider",
    );
    expect(() => resolveEndpoint({ provider: 'groq', baseUrl: 'http://127.0.0.1:9/v1' }, {})).toThrow(
      /bas sends groq's key \(GROQ_API_KEY\) only there/,
    );
    // Named outright, the key goes; the label does not, in run.json or anything read from it.
    const s = resolveSettings({ baseUrl: 'http://127.0.0.1:9/v1', apiKeyVar: 'PRIME_API_KEY' }, config, 'x', {});
    expect([s.provider, s.baseUrl, s.apiKeyVar]).toEqual([null, 'http://127.0.0.1:9/v1', 'PRIME_API_KEY']);
    expect(runInfoOf(s, new Date()).provider).toBeNull();
    expect(
      resolveEndpoint({ provider: 'groq', baseUrl: 'http://127.0.0.1:9/v1', apiKeyVar: 'K' }, {}).provider,
    ).toBeNull();
    // A local provider with no key set has none to leak: its server on another port is fine,
    // without the label; with its key set, the key is still kept to the provider's host.
    const port = resolveEndpoint({ provider: 'llamacpp', baseUrl: 'http://127.0.0.1:8091/v1' }, {});
    expect([port.provider, port.baseUrl, port.keyRequired]).toEqual([null, 'http://127.0.0.1:8091/v1', false]);
    expect(() =>
      resolveEndpoint({ provider: 'llamacpp', baseUrl: 'http://127.0.0.1:8091/v1' }, { LLAMA_API_KEY: 'k' }),
    ).toThrow(/bas sends llamacpp's key \(LLAMA_API_KEY\) only there/);
    // Another path on the provider's own host is still that provider.
    const same = resolveSettings({ model: 'm', provider: 'groq', baseUrl: 'https://api.groq.com/v2' }, null, '', {});
    expect([same.provider, same.apiKeyVar]).toEqual(['groq', 'GROQ_API_KEY']);
  });

  it('the shipped measured-run configuration needs only the Prime Inference key', () => {
    const s = resolveSettings({}, loadConfigFile('configs/au-bas-reconciliation.toml'), 'x', {
      OPENAI_BASE_URL: 'http://elsewhere/v1',
    });
    expect([s.model, s.provider, s.baseUrl, s.apiKeyVar]).toEqual([
      'openai/gpt-5-mini',
      'prime',
      'https://api.pinference.ai/api/v1',
      'PRIME_API_KEY',
    ]);
    expect(apiKeyFor(s, { PRIME_API_KEY: 'pk' })).toBe('pk');
    expect(runInfoOf(s, new Date()).provider).toBe('prime');
  });

  it('a local provider needs no key; a variable named by the user does', () => {
    const local = resolveSettings({ model: 'm', provider: 'ollama' }, null, '', {});
    expect(apiKeyFor(local, {})).toBe(PLACEHOLDER_KEY);
    expect(apiKeyFor(local, { OLLAMA_API_KEY: 'real' })).toBe('real');
    const named = resolveSettings({ model: 'm', provider: 'ollama', apiKeyVar: 'MY_KEY' }, null, '', {});
    expect(() => apiKeyFor(named, {})).toThrow(/MY_KEY is not set/);
    expect(() => apiKeyFor(resolveSettings({ model: 'm', provider: 'openai' }, null, '', {}), {})).toThrow(
      /OPENAI_API_KEY is not set/,
    );
  });

  it('a missing key names the setting in the words of the command line and of the library alike', () => {
    const s = resolveSettings({ model: 'm' }, null, '', {});
    expect(() => apiKeyFor(s, {})).toThrow(
      'OPENAI_API_KEY is not set: export the API key in it, or name the variable that holds it (bas: --api-key-var; a config file or runEval: api_key_var)',
    );
  });

  it('a provider named at resume replaces the saved endpoint; otherwise the saved one stays', () => {
    const saved = runInfoOf(resolveSettings({ model: 'm', provider: 'together' }, null, '', {}), new Date());
    expect(resolveSettings({}, null, '', {}, saved)).toMatchObject({
      provider: 'together',
      baseUrl: 'https://api.together.xyz/v1',
      apiKeyVar: 'TOGETHER_API_KEY',
    });
    expect(resolveSettings({ provider: 'fireworks' }, null, '', {}, saved)).toMatchObject({
      provider: 'fireworks',
      baseUrl: 'https://api.fireworks.ai/inference/v1',
      apiKeyVar: 'FIREWORKS_API_KEY',
    });
  });

  it('a saved provider missing from the registry now still resumes, with the saved endpoint', () => {
    const own = file('[lab]\nbase_url = "https://lab.example/v1"\napi_key_var = "LAB_KEY"\n');
    const saved = runInfoOf(resolveSettings({ model: 'm', provider: 'lab', providers: own }, null, '', {}), new Date());
    expect(resolveSettings({}, null, '', {}, saved)).toMatchObject({
      provider: 'lab',
      baseUrl: 'https://lab.example/v1',
      apiKeyVar: 'LAB_KEY',
      keyRequired: true,
    });
  });

  it('bas models resolves the endpoint the same way, without a model', () => {
    expect(resolveEndpoint({ provider: 'deepseek' }, {})).toMatchObject({
      baseUrl: 'https://api.deepseek.com/v1',
      apiKeyVar: 'DEEPSEEK_API_KEY',
    });
    expect(resolveEndpoint({}, {})).toMatchObject({
      provider: null,
      baseUrl: 'https://api.openai.com/v1',
      apiKeyVar: 'OPENAI_API_KEY',
    });
  });
});

describe('registry files of any size', () => {
  it('a device that never ends (/dev/zero) is refused at the size bound instead of filling memory', () => {
    expect(() => loadProviders('/dev/zero', {})).toThrow(
      /\/dev\/zero is larger than 1000000 bytes: not a provider registry/,
    );
  });
});
