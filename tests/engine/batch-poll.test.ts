import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/serve/serve.js';
import { QUIET_SERVE } from '../support/serve-options.js';
import { makeSdk } from '../../src/endpoint/sdk.js';
import { createBatch, uploadBatchFile } from '../../src/endpoint/batch-api.js';
import { pollUntilEnded } from '../../src/engine/batch-poll.js';
import type { BatchEntry } from '../../src/runfile/batch-state.js';

let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('pollUntilEnded', () => {
  it('waits on the injected clock: the first wait after a change, half as long again after each unchanged poll, capped', async () => {
    server = await startServer({ ...QUIET_SERVE, batchFault: 'slow' });
    const client = await makeSdk({ baseURL: server.url, apiKey: 'k', requestTimeoutMs: 5000 });
    const line = (i: number) =>
      `${JSON.stringify({ custom_id: `task-${i}-r0`, body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } })}\n`;
    const file = await uploadBatchFile(client, 'r.jsonl', line(0) + line(1));
    const id = await createBatch(client, file, {});
    const e: BatchEntry = {
      file_id: file,
      batch_id: id,
      requests: 2,
      status: 'validating',
      counts: { total: 2, completed: 0, failed: 0 },
      output_file_id: null,
      error_file_id: null,
      errors: [],
      graded: false,
    };
    const waits: number[] = [];
    let saves = 0;
    await pollUntilEnded(
      {
        client,
        sleep: async (ms) => void waits.push(ms),
        signal: new AbortController().signal,
        pace: { firstMs: 1000, maxMs: 4000 },
        emit: () => {},
        save: () => saves++,
      },
      [e],
    );
    expect(e.status).toBe('completed');
    expect(e.output_file_id).not.toBeNull();
    // A slow batch of 2 lines: its counts change rarely, so the waits grow between changes, never past the cap.
    expect(Math.max(...waits)).toBe(4000);
    expect(waits).toContain(1500);
    expect(waits.filter((w) => w === 1000).length).toBeGreaterThan(1);
    expect(saves).toBeGreaterThan(0);
  });
});
