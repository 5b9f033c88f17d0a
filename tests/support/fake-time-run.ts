/**
 * A run of the Runner on fake timers, for tests whose figures are simulated time: `n` rollouts
 * against `client` at `concurrency`, the timers driven until none is left, and the seconds
 * from the start to the last record.
 */
import { vi } from 'vitest';
import type { ModelClient } from '../../src/endpoint/client.js';
import { DEFAULT_RETRY_POLICY } from '../../src/endpoint/retry.js';
import { Runner } from '../../src/engine/runner.js';
import type { RolloutRecord } from '../../src/runfile/record.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';

export async function runOnFakeTime(client: ModelClient, n: number, concurrency: number, adaptive?: boolean) {
  const records: RolloutRecord[] = [];
  vi.useFakeTimers();
  try {
    const started = Date.now();
    let ended = started;
    const runner = new Runner({
      taskConfig: DEFAULT_TASK_CONFIG,
      model: 'test',
      client,
      policy: DEFAULT_RETRY_POLICY,
      concurrency,
      ...(adaptive === undefined ? {} : { adaptive }),
      episodeTimeoutMs: 600_000,
      requestTimeoutMs: 60_000,
      sink: (r) => {
        records.push(r);
        ended = Date.now();
      },
    });
    const done = runner.run(Array.from({ length: n }, (_, i) => [i, 0] as const));
    await vi.runAllTimersAsync();
    const out = await done;
    return { out, records, seconds: (ended - started) / 1000 };
  } finally {
    vi.useRealTimers();
  }
}
