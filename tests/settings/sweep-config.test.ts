/**
 * The sweep configuration of `runSweep`: several lists at once (the axis, and the fault rates,
 * which may list several too) are each checked value by value, the others at their first value.
 */
import { describe, expect, it } from 'vitest';
import { sweepFlagsOf } from '../../src/settings/sweep-config.js';

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
});
