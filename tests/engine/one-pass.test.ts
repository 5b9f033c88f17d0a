/**
 * A resume reads its results file once: one fold yields what is finished, what errored and the
 * summary so far, also when rollouts errored and some were re-run (a pair with two lines), and
 * `bas report` reads it once too. Counted as the bytes the process read (`rchar` of
 * /proc/self/io: every read system call, whatever reads), against a results file large enough
 * that the few megabytes of node's own modules do not matter.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bas, DIST, ROOT, tempDir } from '../support/cli.js';

const HAS_PROC_IO = existsSync('/proc/self/io');

/** Runs `bas ...args` in a process of its own; resolves to its exit code and the bytes it read. */
function bytesRead(args: string[]): Promise<{ code: number | null; read: number; stderr: string }> {
  const out = join(tempDir(), 'rchar');
  const script = `
    import { readFileSync, writeFileSync } from 'node:fs';
    process.on('exit', () => writeFileSync(${JSON.stringify(out)}, /rchar: (\\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))[1]));
    const { main } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'cli.js')).href)});
    await main([process.argv[0], ${JSON.stringify(join(ROOT, 'bin', 'bas.js'))}, ...${JSON.stringify(args)}]);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, read: Number(readFileSync(out, 'utf8')), stderr }));
  });
}

/** A finished run of `n` rollouts whose results file is padded to about 20 KB a line. */
async function bigRun(n: number): Promise<{ dir: string; lines: Array<Record<string, unknown>> }> {
  const dir = join(tempDir(), 'run');
  const r = await bas(['eval', '-m', 'builtin:oracle', '-n', String(n), '--output', dir, '--no-progress']);
  expect(r.code, r.stderr).toBe(0);
  const lines = readFileSync(join(dir, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .map((rec) => ({ ...rec, reply: `${rec.reply as string}${' '.repeat(20_000)}` }));
  return { dir, lines };
}

function writeLines(dir: string, lines: Array<Record<string, unknown>>): number {
  const file = join(dir, 'results.jsonl');
  writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return statSync(file).size;
}

function markInterrupted(dir: string): void {
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...run, status: 'interrupted' }));
}

const errored = (rec: Record<string, unknown>) => ({
  ...rec,
  reply: null,
  reward: null,
  rewards: null,
  metrics: null,
  detail: null,
  error: { type: 'timeout', message: 'no reply within the episode timeout' },
  usage: null,
  finish_reason: null,
});

describe.skipIf(!HAS_PROC_IO)('one pass over a run folder', () => {
  it('a resume with nothing left reads results.jsonl once, and marks the run complete', async () => {
    const { dir, lines } = await bigRun(1200);
    const size = writeLines(dir, lines);
    markInterrupted(dir);
    const r = await bytesRead(['eval', '--resume', dir, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).status).toBe('complete');
    expect(r.read).toBeGreaterThan(size);
    expect(r.read, `${r.read} bytes read for a ${size}-byte file`).toBeLessThan(1.5 * size);
  }, 120_000);

  it('a resume after errors (some re-run already, some not) reads results.jsonl once and runs what errored', async () => {
    const { dir, lines } = await bigRun(1200);
    // Every tenth rollout errored; half of those were re-run by an earlier resume (its line last).
    const file = lines.map((rec, i) => (i % 10 === 0 ? errored(rec) : rec));
    const rerun = lines.filter((_, i) => i % 20 === 0);
    const size = writeLines(dir, [...file, ...rerun]);
    markInterrupted(dir);
    const r = await bytesRead(['eval', '--resume', dir, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('60 of 1200 rollouts to run');
    expect(r.read, `${r.read} bytes read for a ${size}-byte file`).toBeLessThan(1.5 * size);
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(run.summary.counts).toMatchObject({ rollouts: 1200, completed: 1200, replaced: 120 });
  }, 120_000);

  it('bas report reads a results file with re-run pairs once', async () => {
    const { dir, lines } = await bigRun(1200);
    const rerun = lines.filter((_, i) => i % 20 === 0);
    const size = writeLines(dir, [...lines.map((rec, i) => (i % 20 === 0 ? errored(rec) : rec)), ...rerun]);
    const r = await bytesRead(['report', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.read, `${r.read} bytes read for a ${size}-byte file`).toBeLessThan(1.5 * size);
  }, 120_000);
});
