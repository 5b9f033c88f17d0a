/**
 * Reading JSONL input files (tasks, replies) one line at a time, with errors that name the
 * file and the line. Blank lines are ignored.
 */
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { openNoFollow } from './open-file.js';
import { ConfigError, fileError, FileTooLargeError, InputLineError, systemErrorCode } from '../errors/index.js';

/** Fails early, with a ConfigError, when `path` is not a readable file. */
function requireFile(path: string, flag: string): void {
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch (err) {
    if (systemErrorCode(err) === 'ENOENT') throw new ConfigError(`${flag}: no such file: ${path}`);
    throw fileError('read', path, err, flag);
  }
  if (!isFile) throw new ConfigError(`${flag}: not a file: ${path}`);
}

/**
 * A whole small file as UTF-8 text, read at most `maxBytes` + 1 bytes far: a device such as
 * /dev/zero, or a file grown huge, fails with a FileTooLargeError at once instead of filling
 * memory. System errors (ENOENT ...) are thrown as they come. `noFollow` refuses a symbolic
 * link (a run folder's own files) instead of reading what it points to.
 */
export function readSmallFile(path: string, maxBytes: number, noFollow = false): string {
  const fd = noFollow ? openNoFollow(path, 'r') : openSync(path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(maxBytes + 1, 1 << 16));
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new FileTooLargeError(path, maxBytes);
      parts.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(parts, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Longest line any reader accepts, in characters. Lines bas writes stay far below (a reply is
 * capped by --max-response-mb, 32 MB by default); past this a line is refused at once, where
 * node's own line reader would keep growing its buffer until the process dies with a stack trace.
 */
export const MAX_LINE_CHARS = 256 * 1024 * 1024;

/** One line of a file: its text without the line end, and whether a `\n` ended it (only a file's last line may lack one). */
export interface FileLine {
  text: string;
  ended: boolean;
}

/**
 * The lines of a UTF-8 file, without their `\n` (or `\r\n`), one at a time, each saying
 * whether its newline was there; a last line without a newline is yielded too (`ended`
 * false). A line longer than `maxChars` throws a ConfigError naming the file and the line, so
 * memory stays bounded whatever the file holds.
 */
async function* boundedFileLines(path: string, maxChars = MAX_LINE_CHARS): AsyncGenerator<FileLine> {
  const batches = boundedFileLineBatches(path, maxChars);
  try {
    for await (const batch of batches) yield* batch;
  } finally {
    await batches.return(undefined);
  }
}

/** Bytes decoded into one string: V8 makes strings of 64 KB far faster than strings of a megabyte. */
const DECODE_BYTES = 1 << 16;

/**
 * The lines of `boundedFileLines`, a batch at a time: the lines that end in one piece of
 * text decoded (64 KB of a megabyte read), so a reader of a long file waits once per
 * megabyte, not once per line. `noFollow` (a run folder's own file) opens it by
 * `openNoFollow`: a link, a FIFO or a device is refused at once instead of read.
 */
export async function* boundedFileLineBatches(
  path: string,
  maxChars = MAX_LINE_CHARS,
  noFollow = false,
): AsyncGenerator<FileLine[]> {
  const fd = noFollow ? openNoFollow(path, 'r') : undefined;
  const input = createReadStream(path, { highWaterMark: 1 << 20, fd });
  const decoder = new StringDecoder('utf8');
  const tooLong = (line: number): ConfigError =>
    new ConfigError(
      `${path}: line ${line} is longer than ${maxChars} characters: the file is damaged, or not one bas wrote`,
    );
  const done = (line: string): string => (line.endsWith('\r') ? line.slice(0, -1) : line);
  let partial = '';
  let lineNo = 0;
  try {
    for await (const bytes of input as AsyncIterable<Buffer>)
      for (let at = 0; at < bytes.length; at += DECODE_BYTES) {
        const chunk = decoder.write(bytes.subarray(at, Math.min(bytes.length, at + DECODE_BYTES)));
        let from = 0;
        const batch: FileLine[] = [];
        for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', from)) {
          lineNo++;
          if (partial.length + nl - from > maxChars) {
            // The lines before it are still handed over: a reader sees the same lines, then the error.
            if (batch.length) yield batch;
            throw tooLong(lineNo);
          }
          const line = partial + chunk.slice(from, nl);
          partial = '';
          from = nl + 1;
          batch.push({ text: done(line), ended: true });
        }
        if (batch.length) yield batch;
        if (partial.length + chunk.length - from > maxChars) throw tooLong(lineNo + 1);
        partial += chunk.slice(from);
      }
    partial += decoder.end();
    if (partial !== '') yield [{ text: done(partial), ended: false }];
  } finally {
    input.destroy();
  }
}

/** The text of each line of `boundedFileLines`. */
export async function* boundedLines(path: string, maxChars = MAX_LINE_CHARS): AsyncGenerator<string> {
  const lines = boundedFileLines(path, maxChars);
  try {
    for await (const line of lines) yield line.text;
  } finally {
    await lines.return(undefined);
  }
}

/**
 * Calls `fn(value, lineNumber)` for each JSON line of `path`, in order. A line that is not
 * JSON, or that `fn` rejects by throwing an InputLineError (or a ConfigError), becomes a
 * ConfigError naming the file and the line. Anything else `fn` throws is a bug of bas, not
 * of the file: it goes up as it is, so the CLI reports it as an internal error.
 */
export async function readJsonLines(
  path: string,
  flag: string,
  fn: (value: unknown, line: number) => void,
): Promise<number> {
  requireFile(path, flag);
  const lines = boundedLines(path);
  let lineNo = 0;
  let count = 0;
  try {
    for await (const text of lines) {
      lineNo++;
      // A byte-order mark (Windows editors save one) is not part of the first line's JSON.
      const line = lineNo === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new ConfigError(`${path}:${lineNo}: not valid JSON`);
      }
      try {
        fn(value, lineNo);
      } catch (err) {
        if (err instanceof InputLineError) throw new ConfigError(`${path}:${lineNo}: ${err.message}`, { cause: err });
        throw err;
      }
      count++;
    }
  } catch (err) {
    if (systemErrorCode(err) !== null) throw fileError('read', path, err, flag);
    throw err;
  } finally {
    await lines.return(undefined);
  }
  return count;
}
