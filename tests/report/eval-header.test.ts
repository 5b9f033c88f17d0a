/**
 * The eval header prints a model name and a folder that may come from a hand-edited run.json
 * (on --resume) or a pasted flag: no control sequence in them may reach the terminal.
 */
import { describe, expect, it } from 'vitest';
import { renderEvalHeader } from '../../src/report/eval-header.js';
import type { RunInfo } from '../../src/runfile/store.js';

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe('renderEvalHeader', () => {
  it('shows a hostile model name and folder without their control sequences', () => {
    const info = {
      model: 'evil\x1b]0;pwned\x07\x1b[2J\u009b31m-model',
      base_url: 'http://127.0.0.1:9/v1',
      task: { num_transactions: 24, fault_rate: 0.25, seed: 1 },
      n: 2,
      rollouts: 1,
      pace: { adaptive: true, max: 8, lowest: 8, final: 8, changes: [], dropped: 0 },
    } as unknown as RunInfo;
    const text = renderEvalHeader({
      dir: 'runs/x\x1b[31m',
      info,
      elapsedS: 1,
      ranHere: 2,
    });
    expect(text).toContain('evil');
    expect(text).toContain('-model');
    expect(text).not.toMatch(CONTROL);
  });
});
