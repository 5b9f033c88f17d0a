/**
 * `bas reward-server`: serves rewards to RL trainers (OpenRLHF's --remote_rm_url, or any
 * client of POST /score) until SIGINT or SIGTERM, then finishes the requests under way and
 * exits 0. The bearer token is read from an environment variable, never from the command
 * line (where `ps` shows it), and is never printed.
 */
import { availableParallelism } from 'node:os';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags, tokenFromVar } from '../settings/flag.js';
import { listenError, runUntilStopped } from '../serve/http-service.js';
import { startRewardServer, type RewardServerOptions } from '../serve/reward-server.js';
import * as std from '../io/std.js';

/** How long shutdown waits for requests under way. */
const GRACE_MS = 10_000;

/** One grading thread per core; none on a single core, where a thread would only add hand-offs. */
function defaultWorkers(): number {
  const cores = availableParallelism();
  return cores > 1 ? Math.min(cores, 16) : 0;
}

/** Checks the flags and reads the token; every bad value names its flag. */
export function rewardServerOptions(given: Record<string, unknown>, env: NodeJS.ProcessEnv): RewardServerOptions {
  const f = readFlags(COMMAND_FLAGS['reward-server'], given);
  const token = tokenFromVar(f.tokenVar, env);
  return {
    port: f.port,
    host: f.host!,
    token,
    maxBatch: f.maxBatch,
    maxBodyBytes: Math.round(f.maxBodyMb * 1024 * 1024),
    cacheSize: f.cacheSize,
    cacheBytes: Math.round(f.cacheMb * 1024 * 1024),
    maxRows: f.maxRows,
    bodyBudgetBytes: Math.round(f.bodyBudgetMb * 1024 * 1024),
    maxConnections: f.maxConnections,
    graceMs: GRACE_MS,
    workers: f.workers ?? defaultWorkers(),
  };
}

/** Runs the server until a signal. */
export async function rewardServer(flags: Record<string, unknown>): Promise<void> {
  const o = rewardServerOptions(flags, std.env());
  o.warn = (line) => std.stderr().write(`bas reward-server: warning: ${line}\n`);
  const server = await startRewardServer(o).catch((err: unknown) => {
    throw listenError(err, o.host, o.port);
  });
  std
    .stdout()
    .write(
      `bas reward-server: listening on ${server.url} (POST /get_reward, POST /score, POST /seed_session, POST /verify, GET /health; at most ${o.maxBatch} items and ${o.maxRows} ledger rows a batch, ${o.workers > 0 ? `${o.workers} grading threads` : 'grading on the main thread'}${o.token ? '; bearer token required' : ''})\n`,
    );
  await runUntilStopped(server, (signal) =>
    std.stderr().write(`bas reward-server: ${signal}: finishing the requests under way\n`),
  );
  const s = server.stats;
  const c = server.cache();
  std
    .stderr()
    .write(
      `bas reward-server: ${s.requests} requests, ${s.graded} replies graded, ${s.refused} refused, ${s.failed} failed; ${c.hits} key cache hits, ${c.misses} misses\n`,
    );
}
