import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer, type ServeOptions } from '../../src/serve/serve.js';
import { QUIET_SERVE } from '../support/serve-options.js';
import { makeSdk } from '../../src/endpoint/sdk.js';
import { createBatch, downloadFile, isFinal, retrieveBatch, uploadBatchFile } from '../../src/endpoint/batch-api.js';
import { batchRequestLines } from '../../src/endpoint/batch-file.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';
import { generateTask } from '../../src/task/generate.js';
import { readMultipart } from '../../src/serve/batch-routes.js';

let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const lines = [0, 1, 2, 3, 4, 5]
  .map((i) => batchRequestLines(generateTask(DEFAULT_TASK_CONFIG, i), { fields: { model: 'm' }, rollouts: 1 }))
  .join('');

/** Uploads the lines, creates a batch and polls it to its end; every status seen, and the files. */
async function runBatch(o: Partial<ServeOptions>) {
  server = await startServer({ ...QUIET_SERVE, ...o });
  const client = await makeSdk({ baseURL: server.url, apiKey: 'k', requestTimeoutMs: 5000 });
  const file = await uploadBatchFile(client, 'requests.jsonl', lines);
  const id = await createBatch(client, file, { bas: 'test' });
  const seen: string[] = [];
  let s = await retrieveBatch(client, id);
  for (let i = 0; i < 100 && !isFinal(s.status); i++) {
    seen.push(s.status);
    s = await retrieveBatch(client, id);
  }
  seen.push(s.status);
  const read = async (f: string | null) =>
    f === null
      ? []
      : (await downloadFile(client, f))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
  const stats = (await (await fetch(`${server.url}/bas/stats`)).json()) as { batches: { created: number } };
  return { s, seen, read, stats, client };
}

describe('bas serve: the batch endpoints', () => {
  it('answers every line, advancing one status per poll, and counts the batch', async () => {
    const { s, seen, read, stats } = await runBatch({});
    expect(seen).toEqual(['in_progress', 'finalizing', 'completed']);
    expect(s.counts).toEqual({ total: 6, completed: 6, failed: 0 });
    const out = await read(s.output_file_id);
    expect(out.map((l) => l.custom_id)).toEqual([
      'task-0-r0',
      'task-1-r0',
      'task-2-r0',
      'task-3-r0',
      'task-4-r0',
      'task-5-r0',
    ]);
    expect(out[0].response.status_code).toBe(200);
    expect(s.error_file_id).toBeNull();
    expect(stats.batches.created).toBe(1);
  });

  it.each([
    ['failed', 'failed', 0, 0],
    ['expired', 'expired', 3, 3],
    ['partial', 'completed', 4, 2],
  ] as const)('--batch-fault %s ends %s with %i answered and %i in the error file', async (fault, status, ok, bad) => {
    const { s, read } = await runBatch({ batchFault: fault });
    expect(s.status).toBe(status);
    expect((await read(s.output_file_id)).length).toBe(ok);
    expect((await read(s.error_file_id)).length).toBe(bad);
    if (fault === 'failed') expect(s.errors[0]).toMatch(/invalid_request/);
  });

  it('--batch-fault slow holds the batch in progress, counts rising; lost-output names a file that is gone', async () => {
    const slow = await runBatch({ batchFault: 'slow' });
    expect(slow.seen.filter((x) => x === 'in_progress').length).toBe(20);
    const lost = await runBatch({ batchFault: 'lost-output' });
    expect(lost.s.status).toBe('completed');
    await expect(downloadFile(lost.client, lost.s.output_file_id!)).rejects.toThrow(/HTTP 404/);
  });

  it('refuses an upload that is not multipart or has no file', () => {
    expect(readMultipart('application/json', '{}')).toMatch(/multipart/);
    expect(
      readMultipart(
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--x--',
      ),
    ).toMatch(/no "file"/);
  });
});
