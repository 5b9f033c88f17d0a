/**
 * Reward servers in process for a test file: `rewardServers()` (called at the file's top level)
 * gives `start`, which listens on a free local port with the options a test names over quiet
 * defaults, and `post`, which sends JSON to one; every server started is closed after each test.
 */
import { afterEach } from 'vitest';
import {
  startRewardServer,
  type RewardServerOptions,
  type RunningRewardServer,
} from '../../src/serve/reward-server.js';
import { postJson } from './post-json.js';

/** No token, a 64 MiB body, grading in process. */
export const REWARD_SERVER_BASE: RewardServerOptions = {
  port: 0,
  host: '127.0.0.1',
  token: null,
  maxBodyBytes: 64 << 20,
  maxBatch: 4096,
  cacheSize: 1000,
  graceMs: 10_000,
  workers: 0,
};

export function rewardServers(defaults: Partial<RewardServerOptions> = {}) {
  const servers: RunningRewardServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return {
    async start(o: Partial<RewardServerOptions> = {}): Promise<RunningRewardServer> {
      const s = await startRewardServer({ ...REWARD_SERVER_BASE, ...defaults, ...o });
      servers.push(s);
      return s;
    },
    post(s: RunningRewardServer, path: string, body: unknown, headers: Record<string, string> = {}) {
      return postJson(`${s.url}${path}`, body, headers);
    },
  };
}
