/**
 * What `bas check` tells a user about endpoints that answer oddly (issue 16 §7): a redirect,
 * a server that takes the connection and hangs up, none at all, and a placeholder key.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPolicy } from '../../src/task/policies.js';
import { closedPort } from '../support/closed-port.js';
import { hostileServer, sendJson, type Respond } from '../support/hostile-server.js';
import { bas, tempDir, type CliResult } from '../support/cli.js';

const ENV = { K: 'key-0123456789' };

async function checkAgainst(respond: Respond, extra: string[] = []): Promise<CliResult> {
  const server = await hostileServer(respond);
  try {
    return await bas(['check', '-m', 'm', '--base-url', server.url, '--api-key-var', 'K', ...extra], {
      env: ENV,
    });
  } finally {
    await server.close();
  }
}

describe('bas check says what it learned, once, in plain words', () => {
  it('a redirect tests neither the key nor the model, and names where it points once', async () => {
    const r = await checkAgainst((_req, res) => {
      res.writeHead(307, { location: 'https://elsewhere.example/v1/chat/completions?token=abcdefgh12345' });
      res.end();
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/reachable +yes \(HTTP 307\)/);
    expect(r.stdout).toMatch(/key +not tested/);
    expect(r.stdout).not.toMatch(/key +accepted/);
    expect(r.stderr).toMatch(
      /^bas: check failed: the endpoint redirected the request to https:\/\/elsewhere\.example\/v1\/chat\/completions \(HTTP 307\); bas does not follow redirects: give the final URL as --base-url$/m,
    );
    expect(r.stdout + r.stderr).not.toMatch(/HTTP 307: HTTP 307|HTTP 307: 307/);
    expect(r.stdout + r.stderr).not.toContain('abcdefgh12345');
  });

  it('a server that takes the connection and hangs up was reached', async () => {
    const r = await checkAgainst((_req, res) => res.socket?.destroy());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/reachable +yes \(no HTTP answer\)/);
    expect(r.stdout).toMatch(/said +the server accepted the connection, then closed it without an answer/);
    expect(r.stderr).toMatch(/^bas: check failed: the server accepted the connection, then closed it/m);
    expect(r.stdout + r.stderr).not.toMatch(/HTTP \?|HTTP null/);
  });

  it('a refused connection is not reachable, and no status is made up', async () => {
    const port = await closedPort();
    const r = await bas(['check', '-m', 'm', '--base-url', `http://127.0.0.1:${port}/v1`, '--api-key-var', 'K'], {
      env: ENV,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/reachable +no/);
    expect(r.stdout + r.stderr).not.toMatch(/HTTP \?|HTTP null/);
  });

  it('an error without a message says so, once, without ".;" or a doubled status', async () => {
    const r = await checkAgainst((_req, res) => sendJson(res, 500, {}));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^bas: check failed: HTTP 500: no message$/m);
  });

  it('a provider message ending in a full stop is not followed by ";"', async () => {
    const server = await hostileServer((_req, res) =>
      sendJson(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_api_key' } }),
    );
    try {
      const r = await bas(
        ['eval', '-m', 'm', '-n', '1', '--base-url', server.url, '--api-key-var', 'K', '--output', tempDir()],
        { env: ENV },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('Incorrect API key provided; run stopped');
      expect(r.stderr).not.toContain('.;');
    } finally {
      await server.close();
    }
  });

  it('an unset key variable of a local provider is named as such: the placeholder was sent', async () => {
    // A model that answers the check's task right, so the check passes.
    const server = await hostileServer((req, res) =>
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: runPolicy('oracle', JSON.parse(req.body).messages) },
            finish_reason: 'stop',
          },
        ],
      }),
    );
    try {
      const own = join(tempDir(), 'p.toml');
      writeFileSync(own, `[here]\nbase_url = "${server.url}"\napi_key_var = "HERE_KEY"\nkey_required = false\n`);
      const r = await bas(['check', '-m', 'm', '--provider', 'here', '--providers', own]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('HERE_KEY not set: a placeholder key was sent');
      expect(r.stdout).not.toContain('key from HERE_KEY');
      const set = await bas(['check', '-m', 'm', '--provider', 'here', '--providers', own], {
        env: { HERE_KEY: 'x' },
      });
      expect(set.stdout).toContain('key from HERE_KEY');
    } finally {
      await server.close();
    }
  });
});
