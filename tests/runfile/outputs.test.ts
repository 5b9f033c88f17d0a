/**
 * What the run folder's owner promises about outputs: an output that is an input is refused
 * before anything is written; a folder build never deletes a folder a user named; Ctrl-C or
 * a kill leaves no temporary file or folder; a closed output pipe ends `bas eval` cleanly.
 * Uses the built CLI (dist/).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRunFolder } from '../../src/runfile/build.js';
import type { RunInfo } from '../../src/runfile/run-info.js';
import { bas, BIN, DIST, startBas, tempDir } from '../support/cli.js';
import { gatedServer } from '../support/gated-server.js';

async function oracleRun(n = 3): Promise<string> {
  const dir = join(tempDir(), 'run');
  const r = await bas(['eval', '-m', 'builtin:oracle', '-n', String(n), '--output', dir, '--no-progress']);
  expect(r.code).toBe(0);
  return dir;
}

function oneLineRefusal(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
}

describe('an output that is one of the inputs', () => {
  it('report --html over the results, by name, by another path or by a link, is refused and the results kept', async () => {
    const run = await oracleRun();
    const results = join(run, 'results.jsonl');
    const before = readFileSync(results, 'utf8');
    const link = join(run, '..', 'link.html');
    symlinkSync(results, link);
    const hard = join(run, '..', 'hard.html');
    linkSync(join(run, 'run.json'), hard);
    for (const out of [results, join(run, '.', 'results.jsonl'), link, hard]) {
      oneLineRefusal(
        await bas(['report', run, '--html', out]),
        /--html .* is the input .*: writing it would destroy what is being read/,
      );
    }
    oneLineRefusal(await bas(['compare', run, await oracleRun(), '--html', join(run, 'run.json')]), /is the input/);
    expect(readFileSync(results, 'utf8')).toBe(before);
  });

  it('score --output at the tasks or the replies is refused and both are kept', async () => {
    const dir = tempDir();
    const tasks = join(dir, 'tasks.jsonl');
    expect((await bas(['gen', '-n', '2', '-o', tasks])).code).toBe(0);
    const replies = join(dir, 'replies.jsonl');
    writeFileSync(replies, '{"index": 0, "reply": "x"}\n{"index": 1, "reply": "y"}\n');
    const taskText = readFileSync(tasks, 'utf8');
    oneLineRefusal(
      await bas(['score', '--tasks', tasks, '--replies', replies, '--output', tasks]),
      /--output .*tasks\.jsonl is a file, not a folder/,
    );
    oneLineRefusal(
      await bas(['score', '--tasks', tasks, '--replies', replies, '--output', `${dir}/./replies.jsonl`]),
      /is a file, not a folder/,
    );
    expect(readFileSync(tasks, 'utf8')).toBe(taskText);
    expect(readFileSync(replies, 'utf8')).toMatch(/"reply": "y"/);
  });
});

describe('folder builds', () => {
  it('a folder that appears at the output path meanwhile is refused and kept with its files', async () => {
    const parent = tempDir();
    const out = join(parent, 'merged');
    const build = buildRunFolder(out, '--output', () => {
      mkdirSync(out);
      writeFileSync(join(out, 'notes.txt'), 'mine');
      return { status: 'complete' } as RunInfo;
    });
    await expect(build).rejects.toThrow(/--output .*merged appeared while the run folder was being built/);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('mine');
    expect(readdirSync(parent)).toEqual(['merged']);
  });

  it('an empty folder at the output path is used', async () => {
    const parent = tempDir();
    const out = join(parent, 'merged');
    mkdirSync(out);
    await buildRunFolder(out, '--output', () => ({ status: 'complete' }) as RunInfo);
    expect(readdirSync(out).sort()).toEqual(['results.jsonl', 'run.json']);
  });
});

/** Spawns `node args`, waits until `ready()` holds, sends `sig`, and resolves with how it ended. */
function interrupt(
  args: string[],
  ready: () => boolean,
  sig: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const poll = setInterval(() => {
      if (ready()) {
        clearInterval(poll);
        child.kill(sig);
      }
    }, 5);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(poll);
      resolve({ code, signal, stderr });
    });
  });
}

const tempsIn = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

describe('signals', () => {
  it('Ctrl-C of gen -o leaves no temporary file and no output', async () => {
    const dir = tempDir();
    const out = join(dir, 'tasks.jsonl');
    const r = await interrupt([BIN, 'gen', '-n', '1000000', '-o', out], () => tempsIn(dir).length > 0, 'SIGINT');
    expect(r.signal).toBe('SIGINT');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('SIGTERM during a folder build (merge, score --output) leaves no temporary folder', async () => {
    const dir = tempDir();
    const script = `
      const { buildRunFolder } = await import(${JSON.stringify(join(DIST, 'runfile/build.js'))});
      await buildRunFolder(${JSON.stringify(join(dir, 'merged'))}, '--output', async (store) => {
        store.append({ index: 0, rollout: 0, reward: null, rewards: null, metrics: null, error: { type: 'x', message: 'x' } });
        await new Promise(() => setInterval(() => {}, 1000));
      });`;
    const r = await interrupt(['--input-type=module', '-e', script], () => tempsIn(dir).length > 0, 'SIGTERM');
    expect(r.signal).toBe('SIGTERM');
    expect(readdirSync(dir)).toEqual([]);
  });

  // A signal that lands the instant the temporary folder or file exists, before the code after
  // the mkdir or open has run: the process sends it to itself from inside that call, so the
  // kernel delivers it on the call's return, whatever the machine's load. Were the cleanup
  // registered only after the call, the default action would kill the process and leave it.
  it.each([
    ['a folder build', 'mkdirSync', `buildRunFolder(join(dir, 'merged'), '--output', () => new Promise(() => {}))`],
    ['an atomic write', 'openSync', `new AtomicFile(join(dir, 'out.json'))`],
  ])('SIGTERM on the instant %s makes its temporary path leaves none', async (_, call, build) => {
    const dir = tempDir();
    const script = `
      const { createRequire, syncBuiltinESMExports } = await import('node:module');
      const fs = createRequire(import.meta.url)('node:fs');
      const { join } = await import('node:path');
      const dir = ${JSON.stringify(dir)};
      const real = fs.${call};
      fs.${call} = function (path, ...rest) {
        const out = real.call(this, path, ...rest);
        if (String(path).endsWith('.tmp')) process.kill(process.pid, 'SIGTERM');
        return out;
      };
      syncBuiltinESMExports();
      const { buildRunFolder } = await import(${JSON.stringify(join(DIST, 'runfile/build.js'))});
      const { AtomicFile } = await import(${JSON.stringify(join(DIST, 'io/atomic-file.js'))});
      // Kept alive, the temporary path still open, until the signal ends the process.
      setInterval(() => {}, 1000);
      await ${build};`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const [, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    expect(signal, stderr).toBe('SIGTERM');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('a closed output pipe', () => {
  it('`bas eval … 2>&1 | head -1` ends the run cleanly: final run.json, no lock, exit 141', async () => {
    // The endpoint answers 30 of the 300 requests and holds the rest: the run is under way, and
    // cannot end, when its first progress line (at 10 %) meets the closed pipe.
    const gate = await gatedServer(30);
    try {
      const dir = join(tempDir(), 'run');
      const child = startBas(['eval', '-m', 'm', '--base-url', gate.url, '-n', '300', '--output', dir], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { OPENAI_API_KEY: 'sk-closed-pipe-0123' },
      });
      // The reader goes away before bas writes anything (no reply reaches it before this line).
      child.stdout!.destroy();
      child.stderr!.destroy();
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(141);
      const info = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
      expect(info.status).toBe('interrupted');
      expect(info.ended_at).not.toBeNull();
      expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
      const lines = readFileSync(join(dir, 'results.jsonl'), 'utf8').trim().split('\n');
      expect(lines).toHaveLength(30);
      // The summary in run.json counts exactly what the results hold.
      expect(info.summary.counts.rollouts).toBe(lines.length);
    } finally {
      gate.release();
      await gate.close();
    }
  });
});
