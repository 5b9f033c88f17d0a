/** What run.json's reader says of a model it cannot take: which check failed, not a catch-all. */
import { describe, expect, it } from 'vitest';
import { checkRunFile } from '../../src/runfile/run-info.js';

describe('run.json "model"', () => {
  it('takes a model name up to 1,000 characters', () => {
    expect(checkRunFile({ model: 'm'.repeat(1000) }, 'run.json').model).toHaveLength(1000);
  });

  it('refuses a longer one saying how long it is and what the bound is', () => {
    expect(() => checkRunFile({ model: 'm'.repeat(1001) }, 'run.json')).toThrow(
      'run.json: "model" is 1,001 characters long; a model name has at most 1,000',
    );
  });

  it('refuses what is not a name as before', () => {
    for (const model of ['', 7, null])
      expect(() => checkRunFile({ model }, 'run.json')).toThrow(
        'run.json: "model" must be a model name (a non-empty string)',
      );
  });
});
