/** The default run folder's name: whatever the model id, a name the file system takes. */
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultOutputDir } from '../../src/engine/session.js';

describe('defaultOutputDir', () => {
  it('keeps the folder name within the 255 bytes file systems allow, for a long model id', () => {
    const when = new Date('2026-01-02T03:04:05Z');
    const dir = defaultOutputDir(`org/${'m'.repeat(2000)}`, { index: 2, count: 4 }, when);
    expect(Buffer.byteLength(basename(dir))).toBeLessThanOrEqual(255);
    expect(basename(dir)).toMatch(/^20260102T030405Z-org_m+-shard2of4$/);
  });
  it('tells apart two models whose names are all outside ASCII, started in the same second', () => {
    const when = new Date('2026-01-02T03:04:05Z');
    const ru = basename(defaultOutputDir('модель', null, when));
    const zh = basename(defaultOutputDir('模型', null, when));
    expect(ru).not.toBe(zh);
    expect(ru).toMatch(/^20260102T030405Z-_-[0-9a-f]{8}$/);
    // The same model, the same name: the hash is of the id, not of the moment.
    expect(basename(defaultOutputDir('модель', null, when))).toBe(ru);
  });
  it('leaves an ordinary model id whole', () => {
    expect(basename(defaultOutputDir('openai/gpt-5-mini', null, new Date('2026-01-02T03:04:05Z')))).toBe(
      '20260102T030405Z-openai_gpt-5-mini',
    );
  });
});
