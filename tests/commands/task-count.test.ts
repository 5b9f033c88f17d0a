import { describe, expect, it } from 'vitest';
import { COMMAND_FLAGS } from '../../src/settings/command-flags.js';
import { readFlags } from '../../src/settings/flag.js';
import { SETTINGS } from '../../src/settings/setting-table.js';
import { checkRunFile } from '../../src/runfile/run-info.js';

// gen and validate once took -n up to 100,000,000 while eval and run.json stopped at
// 10,000,000: a batch file gen could write was one no run could name. One cap now serves all.
describe('-n has one cap everywhere', () => {
  const cap = 10_000_000;

  it('gen and validate take the cap and refuse one more', () => {
    for (const command of [COMMAND_FLAGS.gen, COMMAND_FLAGS.validate]) {
      expect(readFlags(command, { num: String(cap) }).num).toBe(cap);
      expect(() => readFlags(command, { num: String(cap + 1) })).toThrow(
        `-n must be an integer from 1 to ${cap}, got "10000001"`,
      );
    }
  });

  it('eval (the settings declaration) takes the same cap', () => {
    expect(SETTINGS.num.parse(String(cap), '-n')).toBe(cap);
    expect(() => SETTINGS.num.parse(String(cap + 1), '-n')).toThrow(`from 1 to ${cap}`);
  });

  it('a run.json naming more tasks is refused', () => {
    expect(() => checkRunFile({ n: cap + 1 }, 'run.json')).toThrow(`from 1 to ${cap}`);
  });
});
