/**
 * Reading JSONL input files (tasks, replies) one line at a time, with errors that name the
 * file and the line. Blank lines are ignored.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ConfigError, fileError, systemErrorCode } from '../errors.js';

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
 * Calls `fn(value, lineNumber)` for each JSON line of `path`, in order. A line that is not
 * JSON, or that `fn` rejects by throwing a plain Error, becomes a ConfigError naming the line.
 */
export async function readJsonLines(path: string, flag: string, fn: (value: unknown, line: number) => void): Promise<number> {
  requireFile(path, flag);
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  let count = 0;
  try {
    for await (const line of lines) {
      lineNo++;
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
        if (err instanceof ConfigError) throw err;
        throw new ConfigError(`${path}:${lineNo}: ${(err as Error).message}`);
      }
      count++;
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if (systemErrorCode(err) !== null) throw fileError('read', path, err, flag);
    throw new ConfigError(`${flag}: cannot read ${path}: ${(err as Error).message}`);
  } finally {
    lines.close();
  }
  return count;
}
