/**
 * The sweep configuration of `runSweep`: several lists at once (the axis, and the fault rates,
 * which may list several too) are each checked value by value, the others at their first value.
 */
import { describe, expect, it, vi } from 'vitest';
import { sweepFlagsOf } from '../../src/settings/sweep-config.js';

/** Every key and value the config check was given, as `section.key=value`. */
const checked = vi.hoisted(() => [] as string[]);

vi.mock('../../src/settings/config.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/settings/config.js')>();
  return {
    ...real,
    checkConfig: (doc: Record<string, unknown>, file: string, toml?: boolean) => {
      for (const [k, v] of Object.entries(doc))
        if (typeof v === 'object' && v !== null && !Array.isArray(v))
          for (const [kk, vv] of Object.entries(v)) checked.push(`${k}.${kk}=${JSON.stringify(vv)}`);
        else checked.push(`${k}=${JSON.stringify(v)}`);
      return real.checkConfig(doc, file, toml);
    },
  };
});

describe('sweepFlagsOf', () => {
  it('takes the rows and the fault rates as two lists at once', () => {
    const flags = sweepFlagsOf(
      { models: ['builtin:oracle'], task: { num_transactions: [12, 24], fault_rate: [0, 0.5] } },
      'runSweep()',
    );
    expect(flags).toMatchObject({ numTransactions: '12,24', faultRate: '0,0.5', model: ['builtin:oracle'] });
  });

  it('still names the key of a bad value in either list', () => {
    const call = (rows: number[]) => () =>
      sweepFlagsOf(
        { models: ['builtin:oracle'], task: { num_transactions: rows, fault_rate: [0, 0.5] } },
        'runSweep()',
      );
    expect(call([12, 24])).not.toThrow();
    expect(call([12, 'many' as never])).toThrow(/num_transactions/);
  });

  it('checks each key and each value of a list once, and leaves the models to the plan', () => {
    checked.length = 0;
    sweepFlagsOf(
      {
        models: ['builtin:oracle', 'builtin:raw-sums'],
        n: 4,
        task: { num_transactions: [12, 24, 60], fault_rate: [0, 0.5], seed: 3 },
      },
      'runSweep()',
    );
    expect(checked.sort()).toEqual(
      [
        'n=4',
        'task.num_transactions=12',
        'task.num_transactions=24',
        'task.num_transactions=60',
        'task.fault_rate=0',
        'task.fault_rate=0.5',
        'task.seed=3',
      ].sort(),
    );
  });

  it('refuses "model" beside "models", as a config file does, rather than dropping it', () => {
    expect(() =>
      sweepFlagsOf(
        { models: ['builtin:oracle'], model: 'builtin:raw-sums', task: { num_transactions: [12, 24] } } as never,
        'runSweep()',
      ),
    ).toThrow(/^"model" in runSweep\(\): a sweep takes "models"/);
  });
});
