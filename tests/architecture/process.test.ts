/**
 * The CLI's outside world has one owner (src/io/std.ts): standard output and error, the
 * environment and the exit code are asked of it, so the CLI can run inside another process
 * (the tests run it so) with streams and an environment of its own. Only that module, and the
 * process wrapper `main` in cli.ts, may touch `process.stdout`, `process.stderr`,
 * `process.env`, `process.exitCode` or `process.exit`.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

import { SRC, sourceFiles } from '../support/source-files.js';

const OWNER = join(SRC, 'io', 'std.ts');
const CLI = join(SRC, 'cli.ts');

/** `process.stdout`, `process['env']`, `{ env } = process` and the like. */
const TOUCH =
  /\bprocess\s*(?:\??\.\s*|\[\s*['"`])(stdout|stderr|env|exitCode|exit)\b|\{[^}]*\b(stdout|stderr|env|exitCode|exit)\b[^}]*\}\s*=\s*process\b/g;

/** The code of a file without its comments (block comments, and line comments after a blank). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

/** `text` less the body of cli.ts's `main`, the one place allowed to touch the process. */
function withoutMain(text: string): string {
  const start = text.indexOf('export async function main(');
  if (start < 0) return text;
  const end = text.indexOf('\n}\n', start);
  return text.slice(0, start) + text.slice(end < 0 ? text.length : end + 3);
}

/** Where `text` touches the process's streams, environment or exit. */
function touches(text: string): string[] {
  return [...code(text).matchAll(TOUCH)].map((m) => m[0].replace(/\s+/g, ' '));
}

describe("the process's outside world", () => {
  it('is touched only by src/io/std.ts and the process wrapper in cli.ts', () => {
    const found: string[] = [];
    for (const f of sourceFiles(SRC)) {
      if (f === OWNER) continue;
      const text = readFileSync(f, 'utf8');
      for (const t of touches(f === CLI ? withoutMain(text) : text)) found.push(`${relative(SRC, f)}: ${t}`);
    }
    expect(found, 'ask src/io/std.ts (stdout(), stderr(), env()) instead').toEqual([]);
  });

  it('is still reached through the process wrapper', () => {
    // The wrapper exists and is where the exit happens: the check above would pass vacuously otherwise.
    expect(touches(readFileSync(CLI, 'utf8'))).toContain('process.exit');
    expect(touches(withoutMain(readFileSync(CLI, 'utf8')))).toEqual([]);
  });

  it('is recognised however it is spelt', () => {
    expect(touches('process.stdout.write(x)')).toEqual(['process.stdout']);
    expect(touches("const k = process['env'].KEY;")).toEqual(["process['env"]);
    expect(touches('const { env, exitCode } = process;')).toHaveLength(1);
    expect(touches('process.exitCode = 1; process.exit(2)')).toEqual(['process.exitCode', 'process.exit']);
    expect(touches('// process.exit is for cli.ts\n/* process.env */ process.pid')).toEqual([]);
    expect(touches('process.kill(process.pid, sig); process.on("SIGINT", f)')).toEqual([]);
  });
});
