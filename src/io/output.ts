/**
 * Writing command output. A file goes through the atomic writer (src/io/atomic-file.ts): it is
 * renamed into place only when the command succeeds, so a failure never leaves a half-written
 * file. Standard output
 * is written in large chunks with back-pressure, so a long stream uses little memory.
 */
import { statSync } from 'node:fs';
import { AtomicFile } from './atomic-file.js';
import { ConfigError } from '../errors/index.js';
import { redact } from './secrets.js';
import * as std from './std.js';

/** Where a command's text goes. `end()` commits; `abort()` discards. */
export interface OutputSink {
  write(text: string): Promise<void>;
  end(): Promise<void>;
  abort(): void;
}

const CHUNK = 1 << 16;

/** A sink on standard output, buffering into 64 KiB chunks and honouring back-pressure. */
function stdoutSink(): OutputSink {
  let buffer = '';
  const out = std.stdout();
  // A closed pipe (`bas gen | head`) is handled once for the whole program, in cli.ts.
  const flush = async (): Promise<void> => {
    if (buffer === '') return;
    const chunk = buffer;
    buffer = '';
    if (!out.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          out.off('drain', done);
          out.off('error', done);
          resolve();
        };
        out.once('drain', done);
        out.once('error', done);
      });
    }
  };
  return {
    async write(text) {
      buffer += text;
      if (buffer.length >= CHUNK) await flush();
    },
    async end() {
      await flush();
    },
    abort() {
      buffer = '';
    },
  };
}

/**
 * A sink on a file, through the one atomic writer: written to a temporary name, every byte
 * checked, renamed on `end()`. Each 64 KiB chunk yields to the event loop once, so Ctrl-C
 * is heard (and the temporary file removed) even in a long `gen -o`. `noFollow` refuses a
 * link at `path` (a file bas keeps in a run or sweep folder) instead of writing through it.
 */
export function fileSink(path: string, flag: string, noFollow = false): OutputSink {
  const file = new AtomicFile(path, flag, noFollow);
  let buffer = '';
  const flush = async (): Promise<void> => {
    if (buffer === '') return;
    const chunk = buffer;
    buffer = '';
    file.write(chunk);
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
  return {
    async write(text) {
      buffer += text;
      if (buffer.length >= CHUNK) await flush();
    },
    async end() {
      await flush();
      file.commit();
    },
    abort() {
      buffer = '';
      file.abort();
    },
  };
}

/** Device and inode of an existing path (links followed), or null when there is none. */
function identity(path: string): string | null {
  try {
    const st = statSync(path);
    // A folder is never written over; the writer refuses it in its own words.
    if (st.isDirectory()) return null;
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * Refuses an output that is one of the command's inputs, by identity rather than by name, so
 * `RUN/./results.jsonl`, a symbolic link or a hard link to an input is caught too. Called
 * before anything is written.
 */
export function refuseOutputOverInput(out: string, flag: string, inputs: readonly string[]): void {
  const target = identity(out);
  if (target === null) return;
  for (const input of inputs) {
    if (identity(input) === target) {
      throw new ConfigError(
        `${flag} ${out} is the input ${input}: writing it would destroy what is being read; choose another file`,
      );
    }
  }
}

/**
 * `out` with every text written to it passed through `redact` first. The CLI hands each
 * command its standard output so (cli.ts `runCli`): whatever a command prints (a table, JSON,
 * CSV, LaTeX, Markdown), no registered key reaches it. Files pass the same redaction in the
 * one file writer (atomic-file.ts).
 */
export function redactingStream(out: std.OutStream): std.OutStream {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (out.write as (...a: unknown[]) => boolean)(typeof chunk === 'string' ? redact(chunk) : chunk, ...rest);
  return new Proxy(out, {
    get(target, prop) {
      if (prop === 'write') return write;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A file sink when `path` is given, else standard output. */
export function openSink(path: string | undefined, flag: string): OutputSink {
  return path ? fileSink(path, flag) : stdoutSink();
}

/** Runs `body` with a sink, committing it on success and discarding it on any failure. */
export async function withSink<T>(sink: OutputSink, body: (sink: OutputSink) => Promise<T>): Promise<T> {
  try {
    const result = await body(sink);
    await sink.end();
    return result;
  } catch (err) {
    sink.abort();
    throw err;
  }
}

type PipeHandler = () => void;
const pipeHandlers = new Set<PipeHandler>();
let pipeClosedHandled = false;

/**
 * Registers what a long command does when the reader of its standard output or error goes
 * away (`bas eval … | head -1`): typically, stop and finish cleanly. Returns the unregister.
 */
export function onOutputClosed(handler: PipeHandler): () => void {
  pipeHandlers.add(handler);
  return () => pipeHandlers.delete(handler);
}

/**
 * Called by the CLI when writing to standard output or error fails with EPIPE. Returns true
 * when a command took charge (it will end by itself, with its own exit code); false when the
 * CLI should end quietly. Once taken charge of, later EPIPEs are absorbed.
 */
export function outputClosed(): boolean {
  if (pipeClosedHandled) return true;
  if (pipeHandlers.size === 0) return false;
  pipeClosedHandled = true;
  for (const h of [...pipeHandlers]) h();
  return true;
}
