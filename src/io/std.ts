/**
 * The one owner of the process's outside world as the CLI sees it: standard output, standard
 * error (with whether each is a terminal, and its width) and the environment. A command asks
 * here instead of reading `process.*`, so the CLI can run inside another program's process
 * (the tests run it so, `runCli` in cli.ts) with its own streams and environment: within
 * `withStd(std, body)` every call made by `body`, however deep and however asynchronous,
 * sees `std`; outside any, the process's own. Two commands run at once in one process each
 * see their own (AsyncLocalStorage), so their outputs never mix.
 *
 * Only this module and cli.ts's process wrapper touch `process.stdout`, `process.stderr`,
 * `process.env`, `process.exitCode` and `process.exit` (tests/architecture/process.test.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** A stream a command writes text to: a terminal, a pipe, a file, or a buffer of a caller's. */
export interface OutStream extends NodeJS.WritableStream {
  /** True when a person is watching (a terminal): live progress lines, tables by default. */
  isTTY?: boolean;
  /** The terminal's width in columns, when it is one. */
  columns?: number;
}

/** The outside world of one run of the CLI. */
export interface Std {
  stdout: OutStream;
  stderr: OutStream;
  env: NodeJS.ProcessEnv;
  /**
   * Asks a command that runs until stopped (eval, sweep, serve, reward-server) to stop as
   * SIGTERM would, for a caller that runs the CLI in its own process and cannot signal it.
   * Aborted with 'SIGINT' as its reason, it stops as Ctrl-C would (`onStop`).
   */
  stop?: AbortSignal;
}

const current = new AsyncLocalStorage<Std>();
/**
 * The outside world of the process's own run (cli.ts's `main`): the only run in the process,
 * so it needs no AsyncLocalStorage. Entering one turns on Node's promise hooks for the rest of
 * the process, and those cost an eval about 7% of its CPU time (docs/performance.md).
 */
let sole: Std | undefined;

/**
 * Runs `body` (and everything it starts) with `std` as its outside world. `alone`: the caller
 * is the process itself and runs nothing beside it (cli.ts's `main`), so `std` is simply the
 * process's run from now on.
 */
export function withStd<T>(std: Std, body: () => T, alone = false): T {
  if (!alone) return current.run(std, body);
  sole = std;
  return body();
}

/** The outside world of the run under way: its own, else the process's run, if any. */
function store(): Std | undefined {
  return current.getStore() ?? sole;
}

/**
 * The run of the CLI under way in this process, if any: for state that must stay with one run
 * (the secrets it registered, src/io/secrets.ts) when several run in one process.
 */
export function currentRun(): Std | undefined {
  return store();
}

/** The process's own outside world. */
export function processStd(): Std {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** Standard output of the command being run. */
export function stdout(): OutStream {
  return store()?.stdout ?? process.stdout;
}

/** Standard error of the command being run. */
export function stderr(): OutStream {
  return store()?.stderr ?? process.stderr;
}

/** The environment of the command being run (API keys, BAS_* variables). */
export function env(): NodeJS.ProcessEnv {
  return store()?.env ?? process.env;
}

/** The signals that ask a command to stop: Ctrl-C and a polite kill. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/**
 * A repeat of a stop signal this soon after the one that stopped the command is ignored: GNU
 * `timeout -s INT`, a process manager or a terminal may deliver one stop twice (to the process,
 * then to its group) within milliseconds. A repeat after this is a person pressing Ctrl-C again
 * to force the end: the process dies of that signal at once (docs/commands.md, "Stopping and resuming").
 */
export const STOP_REPEAT_GRACE_MS = 1000;

interface Stopper {
  /** Told of the stop: a command that ends itself (eval, sweep, serve) or a cleanup. */
  cb: (sig: StopSignal) => void;
  /** A cleanup (temporary files) runs only when the process is about to die of a signal. */
  cleanup: boolean;
  /** A command that has been told, and is stopping. */
  told: boolean;
}

/** Everyone told of the process's stop signals. */
const stoppers = new Set<Stopper>();
/** When a stop signal was last handed to the commands under way; null before any. */
let stoppedAt: number | null = null;
const inGrace = (now: number): boolean => stoppedAt !== null && now - stoppedAt < STOP_REPEAT_GRACE_MS;

function cleanUp(): void {
  for (const s of [...stoppers]) if (s.cleanup) s.cb('SIGTERM');
}

/** Turns the process handlers on or off (on: while someone listens, and for the grace after a stop). */
function listen(on: boolean): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    const has = process.listeners(sig).includes(onProcessSignal as NodeJS.SignalsListener);
    if (on && !has) process.on(sig, onProcessSignal);
    else if (!on && has) process.removeListener(sig, onProcessSignal);
  }
}

/**
 * Turns the handlers off once no one listens. A command stopped by a signal has ended but the
 * process may still be exiting: until the grace is over a repeat is still the same stop, so
 * the handlers stay (an unref'd timer, which keeps no process alive) and ignore it.
 */
function settle(): void {
  if (stoppers.size > 0) return;
  const left = stoppedAt === null ? 0 : stoppedAt + STOP_REPEAT_GRACE_MS - Date.now();
  if (left <= 0) return listen(false);
  setTimeout(settle, left).unref();
}

/**
 * Removes what is half-written and dies of `sig`, as if it had not been caught (the shell sees
 * 130 or 143). Not when the program hosting the CLI (runCli inside it) handles the signal too:
 * that program decides what the signal does, and its process is not ours to kill.
 */
function dieOf(sig: StopSignal): void {
  if (process.listenerCount(sig) > 1) return;
  cleanUp();
  stoppers.clear();
  listen(false);
  process.kill(process.pid, sig);
}

function onProcessSignal(sig: StopSignal): void {
  const now = Date.now();
  // The same stop delivered twice: what it stopped is already stopping (or has ended).
  if (inGrace(now)) return;
  const commands = [...stoppers].filter((s) => !s.cleanup);
  // Asked again, well after the first: the user wants it over now.
  if (commands.some((s) => s.told)) return dieOf(sig);
  // Nothing under way ends itself: nothing to wait for.
  if (commands.length === 0) return dieOf(sig);
  stoppedAt = now;
  for (const s of commands) {
    s.told = true;
    s.cb(sig);
  }
}

function subscribe(cb: (sig: StopSignal) => void, cleanup: boolean): () => void {
  const s: Stopper = { cb, cleanup, told: false };
  stoppers.add(s);
  listen(true);
  return () => {
    if (stoppers.delete(s)) settle();
  };
}

/**
 * Calls `cb` once when the command is asked to stop: the first SIGINT or SIGTERM the process
 * receives, or the run's `stop` (a caller running the CLI in its own process). Until `off()`,
 * which the command calls when it has ended, a repeat within STOP_REPEAT_GRACE_MS is ignored
 * and a later one ends the process at once. The one owner of the process's stop signals.
 */
export function onStop(cb: (sig: StopSignal) => void): () => void {
  const run = store()?.stop;
  let told = false;
  const once = (sig: StopSignal): void => {
    if (told) return;
    told = true;
    cb(sig);
  };
  const onAbort = (): void => once(run?.reason === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
  const off = subscribe(once, false);
  if (run?.aborted) onAbort();
  else run?.addEventListener('abort', onAbort, { once: true });
  return () => {
    run?.removeEventListener('abort', onAbort);
    off();
  };
}

/**
 * Calls `cleanup` just before the process dies of a stop signal (nothing under way stops
 * itself, or the user forced the end), to remove what is half-written. A run of the CLI
 * inside another program is never killed by it: see `dieOf`.
 */
export function beforeSignalDeath(cleanup: () => void): () => void {
  return subscribe(() => cleanup(), true);
}
