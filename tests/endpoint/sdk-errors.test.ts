/**
 * The openai SDK is loaded only to talk to an endpoint: its errors are recognised without it
 * (src/endpoint/sdk-errors.ts), and a run of a built-in model, a refusal of bad input and a
 * finished run's resume never import it. A resolve hook that refuses `openai` proves both.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as sdk from 'openai';
import { describe, expect, it } from 'vitest';
import { sdkErrorKind } from '../../src/endpoint/sdk-errors.js';
import { basProcess, tempDir } from '../support/cli.js';

/** An instance of every error class the installed SDK exports (its prototype chain is what counts). */
function sdkErrors(): [string, Error][] {
  return Object.entries(sdk)
    .filter(([, value]) => typeof value === 'function' && value.prototype instanceof Error)
    .map(([name, value]) => [name, Object.create((value as { prototype: object }).prototype) as Error]);
}

describe('sdkErrorKind', () => {
  it('agrees with instanceof on every error class the SDK exports', () => {
    const all = sdkErrors();
    expect(all.map(([n]) => n)).toEqual(
      expect.arrayContaining(['APIError', 'RateLimitError', 'APIUserAbortError', 'APIConnectionTimeoutError']),
    );
    for (const [name, err] of all) {
      const expected =
        err instanceof sdk.APIConnectionTimeoutError
          ? 'timeout'
          : err instanceof sdk.APIUserAbortError
            ? 'abort'
            : err instanceof sdk.APIConnectionError
              ? 'connection'
              : err instanceof sdk.APIError
                ? 'status'
                : null;
      expect([name, sdkErrorKind(err)]).toEqual([name, expected]);
    }
    for (const status of [400, 401, 404, 429, 500, 503]) {
      expect(sdkErrorKind(sdk.APIError.generate(status, { error: {} }, undefined, new Headers()))).toBe('status');
    }
  });

  it('is null for errors that only look like the SDK’s', () => {
    class APIError extends Error {
      status = 500;
    }
    class RateLimitError extends APIError {}
    for (const e of [new APIError('x'), new RateLimitError('x'), new Error('x'), new TypeError('x')])
      expect(sdkErrorKind(e)).toBeNull();
    expect(sdkErrorKind({ status: 500 })).toBeNull();
    expect(sdkErrorKind(null)).toBeNull();
  });
});

describe('the SDK is loaded only to reach an endpoint', () => {
  /** NODE_OPTIONS that make any import of the SDK (but its one-line version file) fail. */
  function refusingSdk(): Record<string, string> {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `export async function resolve(specifier, context, next) {
  if (specifier === 'openai' || (specifier.startsWith('openai/') && specifier !== 'openai/version'))
    throw new Error('the openai SDK was imported');
  return next(specifier, context);
}
`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`,
    );
    return { NODE_OPTIONS: `--import=${join(dir, 'register.mjs')}` };
  }

  it('a built-in model runs, resumes and is refused bad input without it', async () => {
    const env = refusingSdk();
    const dir = join(tempDir(), 'run');
    const run = await basProcess(['eval', '-m', 'builtin:oracle', '-n', '3', '--output', dir, '--no-progress'], {
      env,
    });
    expect(run.stderr).not.toMatch(/SDK was imported/);
    expect(run.code).toBe(0);
    expect((await basProcess(['eval', '--resume', dir, '--no-progress'], { env })).code).toBe(0);
    const bad = await basProcess(['eval', '-m', 'x', '--base-url', 'http://127.0.0.1:1/v1', '-n', '0'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^bas: -n /);
  });

  it('the hook bites: talking to an endpoint does load it', async () => {
    const r = await basProcess(
      ['models', '--base-url', 'http://127.0.0.1:1/v1', '--api-key-var', 'NO_SUCH_KEY_VAR_SET'],
      {
        env: { ...refusingSdk(), NO_SUCH_KEY_VAR_SET: 'sk-test' },
      },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/SDK was imported/);
  });
});
