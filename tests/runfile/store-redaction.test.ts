import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forgetSecrets, registerSecret } from '../../src/io/secrets.js';
import { ResultStore, writeRunInfo, type RunInfo } from '../../src/runfile/store.js';
import type { RolloutRecord } from '../../src/runfile/record.js';

const KEY = 'sk-live-9f8e7d6c5b4a';
afterEach(forgetSecrets);

describe('the run folder writers cut out a registered key', () => {
  it('in results.jsonl and run.json', () => {
    registerSecret(KEY);
    const dir = mkdtempSync(join(tmpdir(), 'bas-redact-'));
    const store = ResultStore.create(dir);
    const record = {
      index: 0,
      rollout: 0,
      model: `m ${KEY}`,
      reply: `echo: Bearer ${KEY}`,
      error: { type: 'provider', message: KEY },
    } as unknown as RolloutRecord;
    store.append(record);
    store.release();
    writeRunInfo(dir, { model: 'm', base_url: `http://h/v1 ${KEY}`, status: 'complete' } as unknown as RunInfo);
    for (const f of ['results.jsonl', 'run.json']) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text).not.toContain(KEY);
      expect(text).toContain('[redacted]');
    }
    expect(JSON.parse(readFileSync(join(dir, 'results.jsonl'), 'utf8')).reply).toBe('echo: Bearer [redacted]');
  });
});
