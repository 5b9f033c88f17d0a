/**
 * The response cache (`--cache DIR`): replies already received, kept so that the same request
 * is not paid for twice. An entry is found by the SHA-256 of what makes a request the same one:
 * the endpoint (its URL without credentials), the request body exactly as sent (model,
 * messages, sampling, token limit, stream fields) and the rollout number, so the k-th sample of
 * a task stays the k-th sample and never a copy of the first. Only usable replies are kept;
 * failures (and unusable replies) are asked again next time.
 *
 * An entry is one JSON file, `DIR/ab/abcdef….json`, written to a temporary file and renamed
 * (atomic-file.ts), so two runs sharing a folder see a whole entry or none. It holds the reply
 * in the shape of a chat completion body, the hash of its key material and a hash of the reply
 * itself; a reader checks both, and reads the reply back through `readCompletion`, as a live
 * reply is read. Whatever is wrong with an entry (cut short, not JSON, another key's, a hash
 * that does not match, a link, too large) makes it a miss, never an error. The API key is
 * never part of an entry: it is not in the key material, and the reply is written redacted.
 */
import { createHash } from 'node:crypto';
import { accessSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import { openNoFollow } from '../io/open-file.js';
import { canon } from '../io/canon.js';
import { readFullyFd } from '../io/read-fully.js';
import { redactDeep, urlWithoutCredentials } from '../io/secrets.js';
import { readCompletion, type Completion } from './completion.js';

/** What an entry file says it is; a reader refuses any other. */
const FORMAT = 'bas-reply-cache';
const VERSION = 1;

/** A reply answered from the cache: how long it took when it was first received. */
export interface CachedReply {
  latency_ms: number | null;
  ttft_ms: number | null;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A folder of cached replies, checked when opened. */
export class ReplyCache {
  private constructor(
    readonly dir: string,
    /** Largest entry file read, in bytes: larger is a miss. */
    private readonly maxBytes: number,
  ) {}

  /**
   * The cache in `dir`, made when missing. A link, a file or a folder that cannot be written
   * is refused with a ConfigError (exit 2) naming `--cache`, before any request.
   */
  static open(dir: string, maxResponseBytes: number): ReplyCache {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      st = null;
    }
    if (st?.isSymbolicLink())
      throw new ConfigError(
        `--cache ${dir} is a symbolic link: bas never writes through a link; give the folder it points to`,
      );
    if (st !== null && !st.isDirectory()) throw new ConfigError(`--cache ${dir} is not a folder`);
    try {
      if (st === null) mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK | constants.R_OK | constants.X_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new ConfigError(
        `--cache ${dir} cannot be ${st === null ? 'made' : 'read and written'} (${code}); give a folder this user can write`,
      );
    }
    // An entry holds one reply in JSON: at most a few times the reply's own bytes.
    return new ReplyCache(dir, 4 * maxResponseBytes + 64 * 1024);
  }

  /** The hash naming the entry of this request (`body` as sent, without the key). */
  static keyOf(baseURL: string, body: Record<string, unknown>, rollout: number): string {
    return sha256(canon({ format: FORMAT, version: VERSION, base_url: urlWithoutCredentials(baseURL), body, rollout }));
  }

  /**
   * An entry's path, `DIR/ab/abcdef….json`, when its subfolder `DIR/ab` is a folder of the
   * cache's own (made when missing and `make`); null when it is a link or anything else: the
   * cache never reads or writes outside its folder through a link in it.
   */
  private pathOf(key: string, make = false): string | null {
    const sub = join(this.dir, key.slice(0, 2));
    let st = lstatSync(sub, { throwIfNoEntry: false });
    if (st === undefined && make) {
      mkdirSync(sub);
      st = lstatSync(sub);
    }
    return st?.isDirectory() ? join(sub, `${key}.json`) : null;
  }

  /**
   * The reply kept under `key`, read back as a live reply is (`request` words its advice), or
   * null: no entry, or one that is damaged in any way.
   */
  get(key: string, request: Record<string, unknown>): { completion: Completion; cached: CachedReply } | null {
    let path: string | null;
    try {
      path = this.pathOf(key);
    } catch {
      return null; // a subfolder that cannot be looked at is a miss
    }
    const text = path === null ? null : this.read(path);
    if (text === null) return null;
    try {
      const entry = JSON.parse(text) as Record<string, unknown>;
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return null;
      if (entry.format !== FORMAT || entry.version !== VERSION || entry.key !== key) return null;
      if (typeof entry.check !== 'string' || entry.check !== sha256(canon(entry.reply))) return null;
      // The same reading as a reply from the endpoint: a reply that cannot be scored throws.
      const completion = readCompletion(entry.reply, request);
      return { completion, cached: { latency_ms: duration(entry.latency_ms), ttft_ms: duration(entry.ttft_ms) } };
    } catch {
      return null;
    }
  }

  /** Keeps `completion` under `key`. A failure to write is not the run's: the entry is simply not there. */
  put(key: string, completion: Completion, latencyMs: number | null): void {
    const reply = redactDeep(replyBody(completion));
    const entry = {
      format: FORMAT,
      version: VERSION,
      key,
      reply,
      check: sha256(canon(reply)),
      latency_ms: latencyMs,
      ttft_ms: completion.ttft_ms ?? null,
    };
    try {
      const path = this.pathOf(key, true);
      if (path === null) return; // a link (or a file) where the subfolder should be: not written through
      // A link in an entry's place is never written through: it goes, and the entry takes its name.
      if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(path);
      writeFileAtomic(path, `${JSON.stringify(entry)}\n`, '--cache', true);
    } catch {
      // A full disk or a folder made unwritable meanwhile: the reply was received and is used.
    }
  }

  /** An entry's text, or null when it is missing, a link, not a file or too large. */
  private read(path: string): string | null {
    let fd: number;
    try {
      fd = openNoFollow(path, 'r');
    } catch {
      return null;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.size > this.maxBytes) return null;
      const buf = Buffer.alloc(st.size);
      return readFullyFd(fd, buf, 0) === buf.length ? buf.toString('utf8') : null;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }
}

/** A duration as kept, or null. */
function duration(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

/** A completion as the chat completion body that `readCompletion` reads back into it. */
function replyBody(c: Completion): Record<string, unknown> {
  const body: Record<string, unknown> = {
    choices: [{ index: 0, message: { role: 'assistant', content: c.text }, finish_reason: c.finish_reason }],
  };
  const u = c.usage;
  if (u !== null) {
    const usage: Record<string, unknown> = {
      prompt_tokens: u.prompt_tokens,
      completion_tokens: u.completion_tokens,
      total_tokens: u.total_tokens,
    };
    if (u.reasoning_tokens != null) usage.completion_tokens_details = { reasoning_tokens: u.reasoning_tokens };
    if (u.cached_tokens != null) usage.prompt_tokens_details = { cached_tokens: u.cached_tokens };
    body.usage = usage;
  }
  return body;
}
