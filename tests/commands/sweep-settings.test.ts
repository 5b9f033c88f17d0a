/**
 * A fresh `bas sweep` reads each point's settings once: the up-front reading of each model's
 * first point (which refuses an unknown model before anything is written) is the one that
 * point runs with, not read a second time, config file and registry included.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { tempDir } from '../support/cli.js';

vi.mock('../../src/settings/settings.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/settings/settings.js')>();
  return { ...real, resolveSettings: vi.fn(real.resolveSettings) };
});
vi.mock('../../src/settings/config.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/settings/config.js')>();
  return { ...real, loadConfigFile: vi.fn(real.loadConfigFile) };
});

const { resolveSettings } = await import('../../src/settings/settings.js');
const { loadConfigFile } = await import('../../src/settings/config.js');
const { sweep } = await import('../../src/commands/sweep.js');

afterEach(() => vi.restoreAllMocks());

describe('bas sweep', () => {
  it("reads each point's settings once, its config file included", async () => {
    const dir = tempDir();
    const config = join(dir, 'sweep.toml');
    writeFileSync(config, 'n = 2\n');
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.mocked(resolveSettings).mockClear();
    vi.mocked(loadConfigFile).mockClear();
    await sweep([], {
      model: ['builtin:oracle', 'builtin:blanket'],
      numTransactions: '4,5',
      config,
      output: join(dir, 'sweep'),
      progress: false,
    });
    // Two models at two points: four runs, each read once.
    expect(vi.mocked(resolveSettings).mock.calls).toHaveLength(4);
    expect(vi.mocked(loadConfigFile).mock.calls).toHaveLength(4);
  });
});
