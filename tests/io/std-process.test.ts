/**
 * The CLI started as a process (bin/bas.js, cli.ts's `main`) is the only run in it: it keeps
 * its outside world without AsyncLocalStorage, whose promise hooks would slow every promise of
 * a run (about 7% of an eval's CPU time, docs/performance.md). A program running several
 * commands at once through `runCli` keeps them apart with it (tests/io/secrets.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DIST } from '../support/cli.js';

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** Runs `bas ARGS` as the process's own command; returns whether async hooks were on after it, and its output. */
function runAsProcess(args: string[]): { hooks: boolean; stdout: string; status: number | null } {
  const cli = pathToFileURL(join(DIST, 'cli.js')).href;
  const script = [
    `const { main } = await import(${JSON.stringify(cli)});`,
    `await main(['node', 'bas', ...${JSON.stringify(args)}]);`,
    `const { initHooksExist } = (await import('node:module')).createRequire(import.meta.url)('internal/async_hooks');`,
    `process.stderr.write('hooks=' + initHooksExist() + '\\n');`,
  ].join('\n');
  const r = spawnSync(process.execPath, ['--expose-internals', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const m = /hooks=(true|false)/.exec(r.stderr);
  if (!m) throw new Error(`no hook report; stderr: ${r.stderr}`);
  return { hooks: m[1] === 'true', stdout: r.stdout, status: r.status };
}

describe('the CLI as a process', () => {
  it('runs an eval to the end without turning async hooks on', () => {
    dir = mkdtempSync(join(tmpdir(), 'bas-std-process-'));
    const out = join(dir, 'run');
    const r = runAsProcess(['eval', '--model', 'builtin:oracle', '-n', '5', '--output', out, '--no-progress']);
    expect(r.status).toBe(0);
    expect(r.hooks).toBe(false);
    const run = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as {
      summary: { counts: { completed: number } };
    };
    expect(run.summary.counts.completed).toBe(5);
  });
});
