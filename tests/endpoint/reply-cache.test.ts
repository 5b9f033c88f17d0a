/**
 * The response cache's entries: keyed by endpoint, body and rollout; read back as a live reply
 * is; any damage a miss; the key never written, even when the reply echoes it.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { canon } from '../../src/io/canon.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ReplyCache } from '../../src/endpoint/reply-cache.js';
import type { Completion } from '../../src/endpoint/completion.js';
import { forgetSecrets, registerSecret } from '../../src/io/secrets.js';
import { ConfigError } from '../../src/errors/index.js';
import { tempDir } from '../support/cli.js';

const BODY = { model: 'm', temperature: 0, messages: [{ role: 'user', content: 'hi' }], stream: false };
const URL_ = 'http://127.0.0.1:9/v1';
const reply = (text: string): Completion => ({
  text,
  finish_reason: 'stop',
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, reasoning_tokens: 2, cached_tokens: 3 },
});

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile());
}

afterEach(() => forgetSecrets());

describe('ReplyCache', () => {
  it('gives back what was put, usage and times included, under the same key only', () => {
    const cache = ReplyCache.open(join(tempDir(), 'c'), 1 << 20);
    const key = ReplyCache.keyOf(URL_, BODY, 0);
    expect(cache.get(key, BODY)).toBeNull();
    cache.put(key, { ...reply('answer'), ttft_ms: 7 }, 120);
    const hit = cache.get(key, BODY)!;
    expect(hit.completion).toEqual(reply('answer'));
    expect(hit.cached).toEqual({ latency_ms: 120, ttft_ms: 7 });
    // Any part of the key material changed is another entry.
    expect(ReplyCache.keyOf(URL_, BODY, 1)).not.toBe(key);
    expect(ReplyCache.keyOf('http://127.0.0.1:10/v1', BODY, 0)).not.toBe(key);
    expect(ReplyCache.keyOf(URL_, { ...BODY, temperature: 0.5 }, 0)).not.toBe(key);
    expect(ReplyCache.keyOf(URL_, { ...BODY, stream: true }, 0)).not.toBe(key);
    // Key order does not matter (canonical JSON); credentials in the URL are not part of it.
    const reordered = { stream: false, messages: BODY.messages, temperature: 0, model: 'm' };
    expect(ReplyCache.keyOf(URL_, reordered, 0)).toBe(key);
    expect(ReplyCache.keyOf('http://user:pw@127.0.0.1:9/v1', BODY, 0)).toBe(key);
  });

  it('never writes a registered key, even when the reply echoes it', () => {
    const secret = 'sk-echo-0123456789abcdef';
    registerSecret(secret);
    const dir = join(tempDir(), 'c');
    const cache = ReplyCache.open(dir, 1 << 20);
    const key = ReplyCache.keyOf(URL_, BODY, 0);
    cache.put(key, reply(`your key is ${secret}, and again ${encodeURIComponent(secret)}`), 5);
    const [file] = files(dir);
    const bytes = readFileSync(file!);
    expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(bytes.includes(Buffer.from('[redacted]'))).toBe(true);
    // The redacted entry is still a whole one.
    expect(cache.get(key, BODY)!.completion.text).toContain('[redacted]');
  });

  it('a damaged entry is a miss', () => {
    const dir = join(tempDir(), 'c');
    const cache = ReplyCache.open(dir, 1 << 20);
    const key = ReplyCache.keyOf(URL_, BODY, 0);
    cache.put(key, reply('answer'), 5);
    const [file] = files(dir);
    const good = readFileSync(file!, 'utf8');
    const entry = JSON.parse(good);
    const damaged = [
      '',
      good.slice(0, good.length / 2),
      'not json',
      'null',
      '[]',
      JSON.stringify({ ...entry, key: 'f'.repeat(64) }),
      JSON.stringify({ ...entry, check: 'f'.repeat(64) }),
      JSON.stringify({ ...entry, reply: { ...entry.reply, usage: { prompt_tokens: 1 } } }),
      JSON.stringify({ ...entry, format: 'other' }),
      // A well-formed entry whose reply cannot be scored (hashes made to match).
      (() => {
        const r = { choices: [{ message: { content: '' }, finish_reason: 'length' }] };
        const check = createHash('sha256').update(canon(r)).digest('hex');
        return JSON.stringify({ ...entry, reply: r, check });
      })(),
    ];
    for (const text of damaged) {
      writeFileSync(file!, text);
      expect(cache.get(key, BODY), text.slice(0, 40)).toBeNull();
    }
    writeFileSync(file!, good);
    expect(cache.get(key, BODY)).not.toBeNull();
  });

  it('refuses a folder it cannot write, naming --cache', () => {
    const parent = join(tempDir(), 'p');
    mkdirSync(parent);
    writeFileSync(join(parent, 'f'), '');
    expect(() => ReplyCache.open(join(parent, 'f'), 1)).toThrow(ConfigError);
    expect(() => ReplyCache.open(join(parent, 'f', 'sub'), 1)).toThrow(/--cache .* cannot be made/);
    // Root may write anywhere; the check is then moot.
    if (process.getuid?.() !== 0) {
      const locked = join(parent, 'locked');
      mkdirSync(locked);
      chmodSync(locked, 0o500);
      expect(() => ReplyCache.open(locked, 1)).toThrow(/cannot be read and written/);
    }
  });
});

describe('a link as a subfolder of the cache', () => {
  it('is neither written nor read through: the entry is a miss and nothing lands where it points', () => {
    const base = tempDir();
    const dir = join(base, 'c');
    const cache = ReplyCache.open(dir, 1 << 20);
    const key = ReplyCache.keyOf(URL_, BODY, 0);
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(dir, key.slice(0, 2)));
    cache.put(key, reply('answer'), 120);
    expect(readdirSync(elsewhere)).toEqual([]);
    // An entry placed at the link's target by someone else is not read either.
    const other = ReplyCache.open(join(base, 'd'), 1 << 20);
    other.put(key, reply('planted'), 1);
    const planted = files(join(base, 'd'))[0]!;
    writeFileSync(join(elsewhere, `${key}.json`), readFileSync(planted));
    expect(cache.get(key, BODY)).toBeNull();
    expect(other.get(key, BODY)?.completion.text).toBe('planted');
  });
});
