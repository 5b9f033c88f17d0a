/**
 * Adding a setting is one edit: an entry in the declaration (setting-table.ts). Here the table
 * is given one more entry, `--probe-depth` (TOML `probe_depth`, run.json `probe_depth`,
 * measured), and nothing else is touched: the flag, the TOML key, the resolved settings,
 * run.json and the --resume rules must all know it. The types are derived from the table as
 * well; the type-level half of the promise is at the end.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Commander from 'commander';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { tempDir } from '../support/cli.js';
import type { Setting } from '../../src/settings/setting-entry.js';

vi.mock('../../src/settings/setting-table.js', async (importOriginal) => {
  const table = await importOriginal<typeof import('../../src/settings/setting-table.js')>();
  const { integer } = await import('../../src/settings/numbers.js');
  const probeDepth: Setting<number> = {
    flags: '--probe-depth <D>',
    help: 'how deep the probe goes, 0..9',
    doc: 'How deep the probe goes (0..9).',
    defaultText: '3',
    default: 3,
    toml: 'probe_depth',
    kind: 'integer',
    runJson: 'probe_depth',
    measured: true,
    parse: integer(0, 9),
  };
  // The one edit: an entry in the table (whose keys are SETTING_KEYS, and whose measured
  // run.json keys are MEASURED_RUN_JSON_KEYS).
  Object.assign(table.SETTINGS, { probeDepth });
  (table.SETTING_KEYS as string[]).push('probeDepth');
  (table.MEASURED_RUN_JSON_KEYS as string[]).push('probe_depth');
  return table;
});

const { COMMAND_FLAGS } = await import('../../src/settings/command-flags.js');
const { checkConfig } = await import('../../src/settings/config.js');
const { resolveSettings } = await import('../../src/settings/settings.js');
const { planOf, resolvePlan } = await import('../../src/settings/plan.js');
const { renderFlagsDoc } = await import('../../src/settings/setting-docs.js');
const { runEval } = await import('../../src/index.js');
const { readSavedRun } = await import('../../src/runfile/run-info.js');
const { runInfoFor } = await import('../../src/engine/session.js');
const { Option } = createRequire(import.meta.url)('commander') as typeof Commander;

/** The settings as resolved, with the entry the types do not know of. */
const depth = (s: object): unknown => (s as Record<string, unknown>).probeDepth;

describe('a setting added to the table, and nowhere else', () => {
  it('is a flag of eval, sweep and check, in their help and in docs/flags.md', () => {
    for (const command of ['eval', 'sweep', 'check'] as const) {
      const f = (COMMAND_FLAGS[command] as Record<string, { flags: string }>).probeDepth;
      expect(new Option(f!.flags).attributeName()).toBe('probeDepth');
    }
    expect(renderFlagsDoc()).toContain('| `--probe-depth D` | `probe_depth` | 3 | How deep the probe goes (0..9). |');
  });

  it('is a TOML key, with its type checked', () => {
    expect(() => checkConfig({ probe_depth: 4n }, 'c.toml', true)).not.toThrow();
    expect(() => checkConfig({ probe_depth: 'deep' }, 'c.toml', true)).toThrow(
      /c\.toml: "probe_depth" must be an integer, got a string/,
    );
  });

  it('is a resolved setting: from its flag, its TOML key or its default, range checked', () => {
    expect(depth(resolveSettings({ model: 'm', probeDepth: '5' } as never, null, '', {}))).toBe(5);
    expect(depth(resolveSettings({ model: 'm' }, { probe_depth: 4 }, 'c.toml', {}))).toBe(4);
    expect(depth(resolveSettings({ model: 'm' }, null, '', {}))).toBe(3);
    expect(() => resolveSettings({ model: 'm', probeDepth: '10' } as never, null, '', {})).toThrow(
      /^--probe-depth must be an integer from 0 to 9, got "10"$/,
    );
  });

  it('is kept in run.json, read back on --resume, and a change of it refused (it is measured)', async () => {
    expect(
      runInfoFor(planOf(resolveSettings({ model: 'm', probeDepth: '6' } as never, null, '', {})).record, new Date()),
    ).toMatchObject({ probe_depth: 6 });
    const dir = join(tempDir(), 'run');
    await runEval({ model: 'builtin:oracle', n: 2, probe_depth: 7, output: dir } as never);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).probe_depth).toBe(7);
    const resume = { dir, run: await readSavedRun(dir), file: join(dir, 'run.json') };
    expect(depth(resolvePlan({}, null, '', {}, resume).settings)).toBe(7);
    await expect(runEval({ probe_depth: 8 } as never, { resume: dir })).rejects.toThrow(
      /^--resume: --probe-depth 8 differs from the saved run's 7/,
    );
  });
});

describe('the types follow the table', () => {
  it('the resolved settings hold every entry by its key, with the endpoint resolved', async () => {
    type EvalSettings = import('../../src/settings/settings.js').EvalSettings;
    type SettingKey = import('../../src/settings/setting-table.js').SettingKey;
    expectTypeOf<keyof EvalSettings>().toEqualTypeOf<SettingKey | 'keyRequired' | 'unconfirmed'>();
    expectTypeOf<EvalSettings['numTransactions']>().toEqualTypeOf<number>();
    expectTypeOf<EvalSettings['temperature']>().toEqualTypeOf<number | null>();
    expectTypeOf<EvalSettings['baseUrl']>().toEqualTypeOf<string>();
    expectTypeOf<EvalSettings['shard']>().toEqualTypeOf<import('../../src/settings/shard.js').Shard | null>();
  });

  it("the library's configuration holds every TOML path of the table, sections included", () => {
    type EvalConfig = import('../../src/settings/eval-config.js').EvalConfig;
    expectTypeOf<EvalConfig['n']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<NonNullable<EvalConfig['task']>>().toEqualTypeOf<{
      num_transactions?: number;
      fault_rate?: number;
      seed?: number;
    }>();
    expectTypeOf<NonNullable<EvalConfig['sampling']>['extra']>().toEqualTypeOf<Record<string, unknown> | undefined>();
    expectTypeOf<EvalConfig>().not.toHaveProperty('check');
    expectTypeOf<EvalConfig>().not.toHaveProperty('progress');
  });
});
