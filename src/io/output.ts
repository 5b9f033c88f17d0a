/**
 * Writing command output. A file is written beside its final name and renamed into place only
 * when the command succeeds, so a failure never leaves a half-written file. Standard output
 * is written in large chunks with back-pressure, so a long stream uses little memory.
 */
import { closeSync, existsSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ConfigError } from '../errors.js';

/** Where a command's text goes. `end()` commits; `abort()` discards. */
export interface OutputSink {
  write(text: string): Promise<void>;
  end(): Promise<void>;
  abort(): void;
}

const CHUNK = 1 << 16;

/** A sink on standard output, buffering into 64 KiB chunks and honouring back-pressure. */
export function stdoutSink(): OutputSink {
  let buffer = '';
  // A closed pipe (`bas gen | head`) is handled once for the whole program, in cli.ts.
  const flush = async (): Promise<void> => {
    if (buffer === '') return;
    const chunk = buffer;
    buffer = '';
    if (!process.stdout.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          process.stdout.off('drain', done);
          process.stdout.off('error', done);
          resolve();
        };
        process.stdout.once('drain', done);
        process.stdout.once('error', done);
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

/** A sink on a file, written to a temporary name and renamed on `end()`. */
export function fileSink(path: string, flag: string): OutputSink {
  if (existsSync(path) && statSync(path).isDirectory()) throw new ConfigError(`${flag} ${path} is a folder; give a file name`);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  let fd: number;
  try {
    fd = openSync(temp, 'w');
  } catch (err) {
    throw new ConfigError(`${flag}: cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let buffer = '';
  let open = true;
  const flush = (): void => {
    if (buffer !== '') writeSync(fd, buffer);
    buffer = '';
  };
  return {
    async write(text) {
      buffer += text;
      if (buffer.length >= CHUNK) flush();
    },
    async end() {
      flush();
      closeSync(fd);
      open = false;
      try {
        renameSync(temp, path);
      } catch (err) {
        rmSync(temp, { force: true });
        throw new ConfigError(`${flag}: cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
    },
    abort() {
      if (open) closeSync(fd);
      open = false;
      rmSync(temp, { force: true });
    },
  };
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
