/**
 * The run folder lock: one winner among many processes started at once (also when they all
 * race to take over a dead owner's lock), an owner identity that survives pid reuse, and a
 * release that removes only our own lock. Spawns processes that use the built lock (dist/).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderLock, processStartTime, readLockOwner } from '../../src/runfile/lock.js';
import { LOCK_FILE } from '../../src/runfile/files.js';
import { bas, DIST, startBas } from '../support/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'bas-lock-'));
const LOCK_JS = join(DIST, 'runfile/lock.js');

/**
 * A child's start barrier: it says it is ready (a byte in `ready`), then waits on a timer, not
 * spinning, until all `count` have, so the race starts together however slowly they started.
 */
function startTogether(ready: string, count: number): string {
  return `fs.appendFileSync(${JSON.stringify(ready)}, 'x');
    while (fs.statSync(${JSON.stringify(ready)}).size < ${count}) await new Promise((r) => setTimeout(r, 1));`;
}

/** Runs `count` processes that all try to lock `dir` at the same instant; returns what each said. */
async function race(dir: string, count: number): Promise<string[]> {
  const ready = join(mkdtempSync(join(tmpdir(), 'bas-ready-')), 'ready');
  // Each process marks a byte in \`tried\` once it has tried; the winner holds the lock until
  // all have tried, so a slow starter cannot win only because the first winner had finished.
  const tried = join(mkdtempSync(join(tmpdir(), 'bas-race-')), 'tried');
  const script = `
    const { FolderLock } = await import(${JSON.stringify(LOCK_JS)});
    const fs = await import('node:fs');
    ${startTogether(ready, count)}
    let lock;
    try { lock = FolderLock.acquire(${JSON.stringify(dir)}); } catch (e) { console.log('lost: ' + e.message); }
    fs.appendFileSync(${JSON.stringify(tried)}, 'x');
    if (lock) {
      console.log('won');
      while (fs.statSync(${JSON.stringify(tried)}).size < ${count}) await new Promise((r) => setTimeout(r, 20));
      lock.release();
    }`;
  const runs = Array.from(
    { length: count },
    () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        child.on('error', reject);
        child.on('close', () => resolve(out.trim()));
      }),
  );
  return Promise.all(runs);
}

/**
 * Many rounds of a crash and a takeover race: `count` processes loop; whoever wins the lock
 * logs "+id", holds it a moment, logs "-id", and then "dies" holding it (its lock is replaced
 * by one naming a dead process, as `kill -9` leaves it). The others race to take it over.
 * Returns the log: two winners at once show as two "+" in a row.
 */
async function crashRounds(lockModule: string, dir: string, count: number, rounds: number): Promise<string[]> {
  const log = join(dir, '..', `log-${Date.now()}`);
  const ready = `${log}.ready`;
  const script = `
    const { FolderLock } = await import(${JSON.stringify(lockModule)});
    const fs = await import('node:fs');
    const { hostname } = await import('node:os');
    const dir = ${JSON.stringify(dir)};
    ${startTogether(ready, count)}
    for (let wins = 0, tries = 0; wins < ${rounds} && tries < ${rounds * 400}; tries++) {
      let lock = null;
      try { lock = FolderLock.acquire(dir); } catch { continue; }
      fs.appendFileSync(${JSON.stringify(log)}, '+' + process.pid + '\\n');
      await new Promise((r) => setTimeout(r, 2));
      fs.appendFileSync(${JSON.stringify(log)}, '-' + process.pid + '\\n');
      wins++;
      const dead = JSON.stringify({ pid: ${2 ** 22 + 3}, start: '1', host: hostname(), token: 'dead' + Math.random() });
      fs.writeFileSync(dir + '/dead.' + process.pid, dead);
      fs.renameSync(dir + '/dead.' + process.pid, dir + '/.bas.lock');
    }`;
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
          child.on('error', reject);
          child.on('close', () => resolve());
        }),
    ),
  );
  return readFileSync(log, 'utf8').trim().split('\n');
}

describe('FolderLock', () => {
  it('of twelve processes started at once on one folder, exactly one wins', async () => {
    const dir = tmp();
    const said = await race(dir, 12);
    expect(said.filter((s) => s === 'won')).toHaveLength(1);
    expect(said.filter((s) => s.startsWith('lost: ') && /in use by another bas process/.test(s))).toHaveLength(11);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("of twelve processes taking over a dead owner's lock at once, exactly one wins", async () => {
    const dir = tmp();
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: 2 ** 22 + 11, start: '5', host: hostname(), token: 'gone' }),
    );
    const said = await race(dir, 12);
    expect(said.filter((s) => s === 'won')).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takeovers after crashes never let two processes hold the lock at once', async () => {
    const dir = join(tmp(), 'run');
    mkdirSync(dir);
    const log = await crashRounds(LOCK_JS, dir, 6, 40);
    expect(log.length).toBeGreaterThan(40);
    for (let i = 0; i < log.length; i += 2) {
      expect(log[i]!.startsWith('+'), `line ${i + 1} of the log: ${log.slice(i, i + 2).join(' ')}`).toBe(true);
      expect(log[i + 1]).toBe(`-${log[i]!.slice(1)}`);
    }
  });

  it('a live pid with another start time (a reused pid, pid 1 in a container) is not an owner', () => {
    const dir = tmp();
    const start = processStartTime(process.pid);
    if (start === null) return; // no /proc: start times cannot be compared here
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, start: `${Number(start) + 1}`, host: hostname(), token: 'old' }),
    );
    const lock = FolderLock.acquire(dir);
    expect((readLockOwner(join(dir, LOCK_FILE)) as { token: string }).token).toBe(lock.owner.token);
    lock.release();
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: 1, start: 'not-the-start-of-pid-1', host: hostname(), token: 'init' }),
    );
    FolderLock.acquire(dir).release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('a lock held by a live owner is refused, naming its pid; one from another host is refused too', () => {
    const dir = tmp();
    const lock = FolderLock.acquire(dir);
    expect(() => FolderLock.acquire(dir)).toThrow(new RegExp(`in use by another bas process \\(pid ${process.pid}\\)`));
    lock.release();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, start: null, host: 'elsewhere.example', token: 't' }));
    expect(() => FolderLock.acquire(dir)).toThrow(/in use by bas on host elsewhere\.example/);
  });

  it('a lock naming a worker thread (development builds of 0.4.1) is read by its process, alive or dead', () => {
    const dir = tmp();
    const start = processStartTime(process.pid);
    const live = {
      pid: process.pid,
      start,
      host: hostname(),
      token: 'threaded',
      since: '2026-12-03T10:00:00Z',
      thread: 1,
    };
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(live));
    expect(readLockOwner(join(dir, LOCK_FILE))).toMatchObject({ pid: process.pid, token: 'threaded' });
    expect(() => FolderLock.acquire(dir)).toThrow(new RegExp(`in use by another bas process \\(pid ${process.pid}\\)`));
    // Its process gone: taken over as any dead owner's lock is.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ ...live, pid: 2 ** 22 + 17, start: '5' }));
    const lock = FolderLock.acquire(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).not.toHaveProperty('thread');
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('the lock file is whole from the moment it exists, and release removes only our own lock', () => {
    const dir = tmp();
    const lock = FolderLock.acquire(dir);
    const owner = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'));
    expect(owner).toMatchObject({ pid: process.pid, host: hostname(), token: lock.owner.token });
    // Someone else's lock now stands there (say, after a takeover): release leaves it alone.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ ...owner, token: 'someone-else' }));
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
  });

  it('twelve `bas eval --resume` on one folder at once: the results hold no pair twice', async () => {
    const dir = join(tmp(), 'run');
    const first = await bas(['eval', '-m', 'builtin:oracle', '-n', '1', '--output', dir, '--no-progress']);
    expect(first.code).toBe(0);
    // Widen the run so there is work left to fight over, as a user raising nothing could not;
    // the saved n is what resume runs.
    const info = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...info, n: 300, status: 'interrupted' }));
    // A lock left by a killed run: every process starts by taking it over.
    writeFileSync(join(dir, LOCK_FILE), String(2 ** 22 + 13));
    const runs = Array.from(
      { length: 12 },
      () =>
        new Promise<{ code: number | null; err: string }>((resolve) => {
          const child = startBas(['eval', '--resume', dir, '--no-progress', '--json'], {
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let err = '';
          child.stderr!.on('data', (d) => (err += d));
          child.on('close', (code) => resolve({ code, err }));
        }),
    );
    const results = await Promise.all(runs);
    for (const r of results) {
      if (r.code !== 0) expect(r.err).toMatch(/in use by another bas process/);
    }
    const pairs = readFileSync(join(dir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const r = JSON.parse(l);
        return `${r.index}:${r.rollout}`;
      });
    expect(new Set(pairs).size).toBe(pairs.length);
    expect(pairs).toHaveLength(300);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});

describe('a lock whose owner was killed and not yet reaped', () => {
  it('is dead: a zombie answers signals but never writes again, so a resume takes the folder over', async () => {
    // A parent that never waits for its child: the child exits when told (a line on the stdin
    // they share) and stays a zombie until the parent is killed. (A shell's `sleep 0 & exec
    // sleep 30` raced: the shell could reap its child before the exec.)
    const parent = spawn('perl', ['-e', '$| = 1; my $p = fork; if (!$p) { <STDIN>; exit 0 } print "$p\\n"; sleep 30'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    try {
      const pid = Number(
        await new Promise<string>((done) => parent.stdout!.once('data', (d: Buffer) => done(String(d)))),
      );
      parent.stdin!.write('\n');
      while (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0] !== 'Z')
        await new Promise((r) => setImmediate(r));
      const dir = tmp();
      writeFileSync(
        join(dir, LOCK_FILE),
        JSON.stringify({ pid, start: processStartTime(pid), host: hostname(), token: 'killed' }),
      );
      const lock = FolderLock.acquire(dir);
      expect(lock.owner.pid).toBe(process.pid);
      lock.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
