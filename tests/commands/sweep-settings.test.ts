/**
 * A fresh `bas sweep` runs each point with the settings it was checked with: the up-front
 * reading of each model's first point (which refuses an unknown model before anything is
 * written) is the one that point runs with, and the config file is read once per point.
 *
 * The config file is a FIFO that hands each reader a different `n` (the first reader gets
 * `n = 1`, the next `n = 2`, ...), so each point's run.json says which reading it ran with,
 * and the reads are counted where they happen: at the file, not in the code.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, constants, openSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startBas, tempDir } from '../support/cli.js';

/** Whether process `pid` holds `path` open (Linux: its /proc/PID/fd links). */
function holds(pid: number, path: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/**
 * Serves `n = k` to the k-th reader of the FIFO at `path` until `stop()`; `reads()` counts
 * them. A reading ends when the reader has closed the FIFO (else the next text would join
 * the one it is still reading): `reader()` names the process to watch.
 */
function fifoConfig(path: string, reader: () => number | undefined) {
  execFileSync('mkfifo', [path]);
  let reads = 0;
  let stopped = false;
  const serving = (async () => {
    for (;;) {
      // Opening a FIFO to write waits (on libuv's thread pool) for a reader.
      const fifo = await open(path, 'w');
      if (stopped) return void (await fifo.close());
      reads++;
      await fifo.writeFile(`n = ${reads}\n`);
      await fifo.close();
      const pid = reader();
      while (pid !== undefined && holds(pid, path)) await new Promise((r) => setImmediate(r));
    }
  })();
  return {
    reads: () => reads,
    async stop(): Promise<void> {
      stopped = true;
      // The pending open for writing completes once a reader appears: this one, which never waits.
      const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      await serving;
      closeSync(fd);
    },
  };
}

describe.skipIf(process.platform !== 'linux')('bas sweep', () => {
  it("runs each model's first point with the settings it checked up front, reading the config once per point", async () => {
    const dir = tempDir();
    const fifo = join(dir, 'sweep.toml');
    let child: ChildProcess | undefined;
    const config = fifoConfig(fifo, () => child?.pid);
    let code: number | null = null;
    let stderr = '';
    try {
      child = startBas(
        [
          'sweep',
          '-m',
          'builtin:oracle',
          '-m',
          'builtin:blanket',
          '--num-transactions',
          '4,5',
          '--config',
          fifo,
          '--output',
          join(dir, 'sweep'),
          '--no-progress',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      [code] = (await once(child, 'close')) as [number | null];
    } finally {
      await config.stop();
    }
    expect(code, stderr).toBe(0);
    const tasks = (folder: string): number =>
      JSON.parse(readFileSync(join(dir, 'sweep', folder, 'run.json'), 'utf8')).n;
    // The up-front check read the config first for oracle, then for blanket; their first
    // points (4 rows) ran with those readings, and the 5-row points read it once each.
    expect(tasks('builtin-oracle--rows-4')).toBe(1);
    expect(tasks('builtin-blanket--rows-4')).toBe(2);
    expect([tasks('builtin-oracle--rows-5'), tasks('builtin-blanket--rows-5')]).toEqual([3, 4]);
    expect(config.reads()).toBe(4);
  });
});
