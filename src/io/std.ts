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
   * Asks a server command (serve, reward-server) to stop as SIGTERM would, for a caller that
   * runs the CLI in its own process and cannot signal it. Aborted with a signal's name as its
   * reason, that name is what the command reports.
   */
  stop?: AbortSignal;
}

const current = new AsyncLocalStorage<Std>();

/** Runs `body` (and everything it starts) with `std` as its outside world. */
export function withStd<T>(std: Std, body: () => T): T {
  return current.run(std, body);
}

/**
 * The run of the CLI under way in this process, if any: for state that must stay with one run
 * (the secrets it registered, src/io/secrets.ts) when several run in one process.
 */
export function currentRun(): Std | undefined {
  return current.getStore();
}

/** The process's own outside world. */
export function processStd(): Std {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** Standard output of the command being run. */
export function stdout(): OutStream {
  return current.getStore()?.stdout ?? process.stdout;
}

/** Standard error of the command being run. */
export function stderr(): OutStream {
  return current.getStore()?.stderr ?? process.stderr;
}

/** The environment of the command being run (API keys, BAS_* variables). */
export function env(): NodeJS.ProcessEnv {
  return current.getStore()?.env ?? process.env;
}

/**
 * Resolves with the first SIGINT or SIGTERM the process receives (or the run's `stop`), for a
 * server that runs until told to stop. Its handlers are removed once one fires, so a later
 * signal ends the process as usual and nothing is left behind.
 */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  const stopRun = current.getStore()?.stop;
  return new Promise((resolve) => {
    const stop = (sig: NodeJS.Signals): void => {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      stopRun?.removeEventListener('abort', onAbort);
      resolve(sig);
    };
    const onAbort = (): void => stop(stopRun?.reason === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (stopRun?.aborted) onAbort();
    else stopRun?.addEventListener('abort', onAbort, { once: true });
  });
}
