/**
 * Issue 16 §1: an endpoint that echoes the key split by an escape sequence or a character a
 * reader does not see, padded so that each of bas's cuts falls inside it, at every offset.
 * No piece of the key may reach anything bas prints or keeps: stdout and stderr of eval (text
 * and --json), the run folder's files, report (text, --json, HTML), check and models.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allSplitsMessage,
  echoSplitKeys,
  hostileServer,
  KEY_SPLITTERS,
  sendJson,
  splitKey,
  type HostileServer,
} from '../support/hostile-server.js';
import { bas, tempDir, type CliResult } from '../support/cli.js';

const KEY = 'sk-Zq81vXk2Lm0Tt9WqR';
const ENV = { HOSTILE_KEY: KEY };
/** Pieces of the key long enough to matter: any split leaves one at least half the key long. */
const PIECES = Array.from({ length: KEY.length - 5 }, (_, i) => KEY.slice(i, i + 6));
/** A visible escape bas writes (`\x00`, `\u200b`, `\u{e0041}`), JSON's for a control, a hidden character. */
const SHOWN = /\\u\{[0-9a-f]+\}|\\u[0-9a-fA-F]{4}|\\x[0-9a-f]{2}|\\[bfr]|[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}]/gu;

/** The pieces of the key found in `text`, as it is and with escapes and hidden characters taken out. */
function leaks(text: string): string[] {
  const seen = text.replace(SHOWN, '');
  return PIECES.filter((p) => text.includes(p) || seen.includes(p));
}

function evalArgs(url: string, dir: string, extra: string[] = []): string[] {
  const n = String(KEY_SPLITTERS.length * (KEY.length - 1));
  return [
    'eval',
    '-m',
    'some-model',
    '-n',
    n,
    '-r',
    '5',
    '-c',
    '16',
    '--base-url',
    url,
    '--api-key-var',
    'HOSTILE_KEY',
    '--max-retries',
    '0',
    '--output',
    dir,
    '--no-progress',
    ...extra,
  ];
}

describe('a key split by hidden characters and cut at every offset', () => {
  const servers: HostileServer[] = [];
  const outputs: Array<[string, string]> = [];
  let dir = '';

  beforeAll(async () => {
    const root = tempDir();
    dir = join(root, 'run');
    const [a, b] = await Promise.all([hostileServer(echoSplitKeys()), hostileServer(echoSplitKeys())]);
    servers.push(a!, b!);
    const [text, json] = await Promise.all([
      bas(evalArgs(a!.url, dir), { env: ENV }),
      bas(evalArgs(b!.url, join(root, 'run-json'), ['--json']), { env: ENV }),
    ]);
    const html = join(root, 'report.html');
    const [report, reportJson] = await Promise.all([
      bas(['report', dir, '--html', html], { env: ENV }),
      bas(['report', dir, '--json']),
    ]);
    const add = (name: string, r: CliResult) =>
      outputs.push([`${name} stdout`, r.stdout], [`${name} stderr`, r.stderr]);
    add('eval', text);
    add('eval --json', json);
    add('report', report);
    add('report --json', reportJson);
    for (const f of ['results.jsonl', 'run.json']) outputs.push([f, readFileSync(join(dir, f), 'utf8')]);
    outputs.push(['run-json/results.jsonl', readFileSync(join(root, 'run-json', 'results.jsonl'), 'utf8')]);
    outputs.push(['report.html', readFileSync(html, 'utf8')]);
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('the endpoint was asked every combination', () => {
    const combos = 5 * KEY_SPLITTERS.length * (KEY.length - 1);
    for (const s of servers) expect(s.seen.length).toBe(combos);
  });

  it('no piece of the key is in any output', () => {
    for (const [name, text] of outputs) expect(leaks(text), name).toEqual([]);
  });

  it('the echoes were redacted, not lost', () => {
    const records = outputs.find(([n]) => n === 'results.jsonl')![1];
    // Checked without printing the file: a failure would print megabytes.
    expect(records.includes('"reply":"your key: [redacted] and the rest"')).toBe(true);
    // A cut that would fall inside the marker falls before it.
    expect(/the model refused: p+\[redacted\] and t[a-z ]*…"/.test(records)).toBe(true);
    expect(/the model refused: p+…"/.test(records)).toBe(true);
    expect(/"HTTP 400: p+\[redacted\] and t[a-z ]*…"/.test(records)).toBe(true);
  });
});

describe('check and models against an endpoint that echoes the key split', () => {
  const OFFSETS = [1, 4, 8, 12, 16, KEY.length - 1];

  it.each(OFFSETS)('bas check, a refusal cut %i characters into the key', async (at) => {
    const server = await hostileServer((req, res) => {
      const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      sendJson(res, 400, { error: { message: allSplitsMessage(key, at, 300), type: 'invalid_request_error' } });
    });
    try {
      const [text, json] = await Promise.all([
        bas(['check', '-m', 'm', '--base-url', server.url, '--api-key-var', 'HOSTILE_KEY'], { env: ENV }),
        bas(['check', '-m', 'm', '--base-url', server.url, '--api-key-var', 'HOSTILE_KEY', '--json'], {
          env: ENV,
        }),
      ]);
      expect(text.code).toBe(1);
      for (const out of [text.stdout, text.stderr, json.stdout, json.stderr]) expect(leaks(out)).toEqual([]);
      expect(text.stdout).toContain('[redacted]');
    } finally {
      await server.close();
    }
  });

  it.each(OFFSETS)('bas check, a reply cut %i characters into the key', async (at) => {
    const splitter = KEY_SPLITTERS[at % KEY_SPLITTERS.length]![1];
    const server = await hostileServer((req, res) => {
      const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      const content = `${'p'.repeat(80 - at)}${splitKey(key, splitter, at)} tail`;
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      });
    });
    try {
      const r = await bas(['check', '-m', 'm', '--base-url', server.url, '--api-key-var', 'HOSTILE_KEY'], {
        env: ENV,
      });
      // The reply holds no answer, so the check fails (exit 1); what matters is what it prints.
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/answer +not parsed/);
      expect(leaks(r.stdout + r.stderr)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it.each(OFFSETS)('bas models, ids and a refusal cut %i characters into the key', async (at) => {
    let refuse = false;
    const server = await hostileServer((req, res) => {
      const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (refuse)
        return sendJson(res, 401, { error: { message: allSplitsMessage(key, at, 300), type: 'invalid_api_key' } });
      const data = KEY_SPLITTERS.map(([, s]) => ({ id: `${'p'.repeat(200 - at)}${splitKey(key, s, at)}` }));
      sendJson(res, 200, { object: 'list', data });
    });
    try {
      const args = ['models', '--base-url', server.url, '--api-key-var', 'HOSTILE_KEY'];
      const [listed, listedJson] = await Promise.all([bas(args, { env: ENV }), bas([...args, '--json'], { env: ENV })]);
      refuse = true;
      const refused = await bas(args, { env: ENV });
      expect(listed.code).toBe(0);
      expect(refused.code).toBe(1);
      for (const r of [listed, listedJson, refused]) expect(leaks(r.stdout + r.stderr)).toEqual([]);
      expect(refused.stderr).toContain('[redacted]');
    } finally {
      await server.close();
    }
  });
});
