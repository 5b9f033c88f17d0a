/**
 * How tests run the real CLI. `bas()` runs a command inside the test's own process: it imports
 * the compiled dist/cli.js (the code `node bin/bas.js` runs) and calls `runCli` with streams
 * and an environment of the test's own (src/io/std.ts), so a command costs no node start-up.
 * tests/support/build.ts (vitest's globalSetup) rebuilds dist/ before every test run, so what
 * runs is always the source under test, never a stale build.
 *
 * `serve()` runs `bas serve` in this process too. `basProcess()`, `startBas()` and
 * `serveProcess()` start `node bin/bas.js` as a child instead, for
 * what only a process shows: signals and kills, closed pipes, the launcher itself, a working
 * folder of its own (`cwd`), standard input, and how the process exits.
 *
 * Every run gets the parent's environment less any real key or endpoint (see cleanEnv), so a
 * test can only reach the servers it starts itself.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

/** The project's root folder (the default working directory of every child). */
export const ROOT = resolve(import.meta.dirname, '../..');
/** The launcher a user runs. */
export const BIN = join(ROOT, 'bin', 'bas.js');
/** The compiled program, for tests that import a built module inside a child process. */
export const DIST = join(ROOT, 'dist');

/** Extra environment for a run, merged over cleanEnv() (`undefined` removes a variable). */
export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Stops an in-process run as a signal would (its reason 'SIGINT' or 'SIGTERM'); bas() only. */
  stop?: AbortSignal;
}

/** How a child is started: also its working folder and standard input. */
export interface ProcessOptions extends RunOptions {
  cwd?: string;
  input?: string;
}

/** What a finished run printed and how it ended (`code` is null when a signal ended a child). */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

// No test may reach a real provider, in this process either: the SDK reads these itself.
delete process.env.OPENAI_API_KEY;
delete process.env.OPENAI_BASE_URL;

let cli: Promise<typeof import('../../src/cli.js')> | null = null;

/** The compiled CLI, imported once per test file. */
function loadCli(): Promise<typeof import('../../src/cli.js')> {
  cli ??= import(pathToFileURL(join(DIST, 'cli.js')).href);
  return cli;
}

/** The environment of an in-process run: cleanEnv() with `extra` over it, no undefined values. */
function runEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries({ ...cleanEnv(), ...extra })) if (v !== undefined) env[k] = v;
  return env;
}

/** A stream that keeps what is written to it, as a pipe would hand it to a reader. */
function capture(): { stream: Writable; text(): string } {
  const parts: string[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      parts.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => parts.join('') };
}

/**
 * Runs `bas <args>` to the end inside this process, as the launcher would run it, with its
 * own standard output and error (captured) and environment. Runs started together keep their
 * outputs apart. Paths are taken as the test's process sees them (ROOT): a test that needs
 * another working folder uses basProcess.
 */
export async function bas(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const { runCli } = await loadCli();
  const out = capture();
  const err = capture();
  const code = await runCli(args, {
    stdout: out.stream,
    stderr: err.stream,
    env: runEnv(options.env),
    stop: options.stop,
  });
  return { code, signal: null, stdout: out.text(), stderr: err.text() };
}

/**
 * Runs `bas <args>` to the end as a child process (`node bin/bas.js`): for what only a process
 * shows (its exit, the launcher), a working folder of its own, or standard input.
 */
export function basProcess(args: string[], options: ProcessOptions = {}): Promise<CliResult> {
  return new Promise((done) => {
    const child = startBas(args, {
      ...options,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    if (options.input !== undefined) child.stdin!.end(options.input);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

/** Starts `bas <args>` and hands back the child, for tests that signal or watch it while it runs. */
export function startBas(args: string[], options: ProcessOptions & { stdio?: StdioOptions } = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...cleanEnv(), ...options.env },
    stdio: options.stdio ?? 'ignore',
  });
}

/** The parent's environment without any real key or endpoint, so no test can reach a provider. */
function cleanEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  return env;
}

/** A `bas serve` on a free loopback port; `ended()` once it has stopped, or died. */
export interface Served {
  url: string;
  ended(): boolean;
  stop(): Promise<void>;
}

/** The line `bas serve` prints once it listens, with its URL. */
const LISTENING = /listening on (http:\/\/\S+)/;

/**
 * Runs `bas serve --port 0 ...` inside this process and resolves once it says the URL it
 * listens on; `stop()` ends it as SIGTERM would (the run's `stop`, src/io/std.ts).
 */
export async function serve(args: string[]): Promise<Served> {
  const { runCli } = await loadCli();
  let said = '';
  let listening: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => (listening = resolve));
  const stdout = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      said += chunk.toString();
      const m = LISTENING.exec(said);
      if (m) listening(m[1]!);
      done();
    },
  });
  const err = capture();
  const stop = new AbortController();
  let ended = false;
  const run = runCli(['serve', '--port', '0', ...args], {
    stdout,
    stderr: err.stream,
    env: runEnv(),
    stop: stop.signal,
  }).finally(() => (ended = true));
  const exited = run.then((code) => {
    throw new Error(`bas serve exited with ${code}: ${said}${err.text()}`);
  });
  exited.catch(() => {}); // seen by the race below while it is run; later, once stopped on purpose
  return {
    url: await Promise.race([url, exited]),
    ended: () => ended,
    stop: async () => {
      stop.abort('SIGTERM');
      await run;
    },
  };
}

/** Starts `bas serve --port 0 ...` as a child process and resolves once it prints its URL. */
export function serveProcess(args: string[]): Promise<Served> {
  return new Promise((resolvePromise, reject) => {
    const proc = startBas(['serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const ended = () => proc.exitCode !== null || proc.signalCode !== null;
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = LISTENING.exec(out);
      if (m) {
        resolvePromise({
          url: m[1]!,
          ended,
          stop: () =>
            new Promise<void>((done) => {
              if (ended()) return done();
              proc.once('exit', () => done());
              proc.kill('SIGTERM');
            }),
        });
      }
    });
    proc.once('exit', (code) => reject(new Error(`bas serve exited with ${code}: ${out}`)));
  });
}

/** A fresh empty folder under the system's temp folder. */
export function tempDir(prefix = 'bas-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Records of a run folder's results.jsonl. */
export function readResults(dir: string): Array<Record<string, any>> {
  const text = readFileSync(join(dir, 'results.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** Every file under `dir`, recursively, with its content (latin1, so any bytes survive). */
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
    typeof v === 'number'
      ? Math.round(v * 1e9) / 1e9
      : Array.isArray(v)
        ? v.map(round)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, round(x)]))
          : v;
  const { lines: _l, replaced: _r, ...counts } = s.counts;
  // eval --json adds the cost at the run's prices and the run's provenance (its dates, its
  // endpoint); merge and score print the summary alone.
  const { latency_ms: _lat, cost: _cost, provenance: _prov, ...rest } = s;
  return round({ ...rest, counts }) as Record<string, unknown>;
}
