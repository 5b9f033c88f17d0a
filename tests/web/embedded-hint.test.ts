/**
 * A page holds a selection of a run's rollouts; asked for another, it names the command that
 * prints it, with the run's folder as one shell word (as every hint bas prints does).
 */
import { describe, expect, it } from 'vitest';
import type { PageData } from '../../src/display/page-data.js';
import { EmbeddedSource } from '../../src/web/embedded.js';
import { shellWords } from '../support/shell-words.js';

describe('a page asked for a rollout it does not hold', () => {
  it('names the folder in `bas report DIR --rollout` as one word', async () => {
    const dir = '/tmp/my runs/gpt 5';
    const data = {
      kind: 'run',
      start: '#/run/r',
      runs: { r: { run: {}, drill: { dir, rollouts: [], maxReplyChars: 1000, total_rollouts: 5 } } },
    } as unknown as PageData;
    const asked = new EmbeddedSource(data).rollout('r', { index: 3, rollout: 0 });
    const message = await asked.then(
      () => '',
      (err: Error) => err.message,
    );
    const at = message.indexOf('bas report ');
    expect(shellWords(message.slice(at).replace(/ prints it$/, ''))).toEqual([
      'bas',
      'report',
      dir,
      '--rollout',
      '3:0',
    ]);
  });
});
