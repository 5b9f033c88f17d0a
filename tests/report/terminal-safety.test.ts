/**
 * Outside text that reaches a terminal through report and compare (issue 9 §3): a model name
 * or an error message read back from a run folder carries escape sequences and controls.
 * None of them may reach standard output or standard error.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';
import { SMALL_CONFIG, writeRun } from './make-run.js';

const NASTY = 'evil\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZWNobyBwd25lZA==\x1b\\\u009b31m\r\x07-model';
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

let a: string;
let b: string;
beforeAll(() => {
  const root = tempDir();
  a = join(root, `a${'\x1b[31m'}`);
  b = join(root, 'b');
  writeRun(a, {
    n: 4,
    model: NASTY,
    choose: (i) => (i === 0 ? { error: `provider${'\x1b[2J'}` } : 'oracle'),
    config: SMALL_CONFIG,
  });
  writeRun(b, { n: 4, model: 'plain', choose: () => 'raw-sums', config: SMALL_CONFIG });
});

describe('no control sequence from a run folder reaches the terminal', () => {
  it('bas report', async () => {
    const r = await bas(['report', a]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('evil');
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stderr).not.toMatch(CONTROL);
  });
  it('bas compare', async () => {
    const r = await bas(['compare', a, b]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('evil');
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stderr).not.toMatch(CONTROL);
  });
  it('an error naming the folder', async () => {
    const r = await bas(['report', join(a, 'missing\x1b]0;x\x07')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toMatch(CONTROL);
  });
});
