/**
 * Running the real CLI for end-to-end tests: `bas serve` on a free loopback port, and
 * `bas eval` against it, as child processes (the compiled dist/, so `npm run build` first).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BAS = join(ROOT, 'bin', 'bas.js');

/** Builds dist/ once if a test run starts without it. */
export function ensureBuilt(): void {
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
}

export const tempDir = (): string => mkdtempSync(join(tmpdir(), 'bas-e2e-'));

export interface Served {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `bas serve --port 0 ...` and waits for the URL it prints. */
export function serve(args: string[]): Promise<Served> {
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(process.execPath, [BAS, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        resolvePromise({
          url: m[1]!,
          proc,
          stop: () =>
            new Promise<void>((done) => {
              if (proc.exitCode !== null) return done();
              proc.once('exit', () => done());
              proc.kill('SIGTERM');
            }),
        });
      }
    });
    proc.once('exit', (code) => reject(new Error(`bas serve exited with ${code}: ${out}`)));
  });
}

export interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `bas <args>` to the end. */
export function bas(args: string[], env: Record<string, string | undefined> = {}, cwd = ROOT): Promise<Result> {
  return new Promise((resolvePromise) => {
    const proc = spawn(process.execPath, [BAS, ...args], { cwd, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
}

/** The parent's environment without any real key or endpoint, so no test can reach a provider. */
export function cleanEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  return env;
}

/** Records of a run folder's results.jsonl. */
export function readResults(dir: string): Array<Record<string, any>> {
  const text = readFileSync(join(dir, 'results.jsonl'), 'utf8');
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

/** Every file under `dir`, recursively, with its content. */
export function allFiles(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...allFiles(p));
    else out.push({ path: p, text: readFileSync(p, 'latin1') });
  }
  return out;
}

/** The parts of a summary that must not depend on timing, order or interruptions. */
export function stableSummary(s: Record<string, any>): Record<string, unknown> {
  const round = (v: unknown): unknown =>
    typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : Array.isArray(v) ? v.map(round) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, round(x)])) : v;
  const { lines: _l, replaced: _r, ...counts } = s.counts;
  const { latency_ms: _lat, ...rest } = s;
  return round({ ...rest, counts }) as Record<string, unknown>;
}
