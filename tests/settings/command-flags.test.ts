/**
 * Every command's flags as tables: what a flag's text parses to, or the one-line message it
 * is refused with. The parsers come from the one declaration (src/settings/command-flags.ts),
 * so the same text reads the same everywhere: `12.0` and ` 5` are refused by gen as by sweep.
 */
import { describe, expect, it } from 'vitest';
import { COMMAND_FLAGS } from '../../src/settings/command-flags.js';
import { COMMAND_NAMES, type CommandName } from '../../src/settings/command-names.js';
import { collectOnce, helpLine, readFlags } from '../../src/settings/flag.js';
import { parseInteger, parseNumber } from '../../src/settings/numbers.js';

type Row = [CommandName, Record<string, unknown>, Record<string, unknown> | RegExp];

const rows: Row[] = [
  // gen: the task group, with gen's own default of -n
  ['gen', {}, { num: 10, numTransactions: 24, faultRate: 0.25, seed: 20260826, format: null, out: null }],
  [
    'gen',
    { num: '7', numTransactions: '60', faultRate: '0.5', seed: '0' },
    { num: 7, numTransactions: 60, faultRate: 0.5, seed: 0 },
  ],
  ['gen', { num: '1.0' }, /^-n must be an integer from 1 to 10000000, got "1\.0"$/],
  ['gen', { num: ' 5' }, /^-n must be an integer from 1 to 10000000, got " 5"$/],
  ['gen', { num: '5 ' }, /^-n must be an integer from 1 to 10000000/],
  ['gen', { num: '1e3' }, /^-n must be an integer/],
  ['gen', { num: '0x10' }, /^-n must be an integer/],
  ['gen', { num: '' }, /^-n must be an integer/],
  ['gen', { numTransactions: '12.0' }, /^--num-transactions must be an integer from 4 to 10000, got "12\.0"$/],
  ['gen', { faultRate: 'Infinity' }, /^--fault-rate must be a number from 0 to 1/],
  ['gen', { faultRate: '0x1' }, /^--fault-rate must be a number from 0 to 1/],
  ['gen', { faultRate: '5e-1' }, { faultRate: 0.5 }],
  ['gen', { format: 'csv' }, { format: 'csv' }],
  ['gen', { format: 'CSV' }, /^--format must be one of jsonl, prompt, table, csv, batch, dataset, got "CSV"$/],
  ['gen', { split: 'train' }, { split: 'train' }],
  ['gen', { split: 'Train' }, /^--split must be one of train, test, got "Train"$/],
  ['gen', { rollouts: '2.0' }, /^-r\/--rollouts must be an integer from 1 to 1000/],
  ['gen', { temperature: '3' }, /^--temperature must be a number from 0 to 2, got "3"$/],
  // validate: -n defaults to 60
  ['validate', {}, { num: 60, tasks: null, json: false }],
  ['validate', { num: '3.0' }, /^-n must be an integer/],
  ['validate', { tasks: ' ' }, /^--tasks must not be empty$/],
  // score
  ['score', { tasks: 't', replies: 'r', model: 'm' }, { tasks: 't', replies: 'r', model: 'm', output: null }],
  ['score', { tasks: 't', replies: 'r', model: ' ' }, /^-m\/--model must name a model/],
  ['score', { tasks: 't', replies: 'r', out: 'x' }, { out: 'x', output: null }],
  ['score', { tasks: 't', replies: 'r', out: ' ' }, /^--out must not be empty$/],
  // merge
  ['merge', { output: 'o' }, { output: 'o', json: false }],
  // report: the price group, with the same range as eval's
  ['report', {}, { priceIn: null, priceOut: null, html: null, json: false }],
  ['report', { priceIn: '1.5', priceOut: '0' }, { priceIn: 1.5, priceOut: 0 }],
  ['report', { priceIn: '2e6' }, /^--price-in must be a number from 0 to 1000000, got "2e6"$/],
  ['report', { priceOut: '-1' }, /^--price-out must be a number from 0 to 1000000/],
  ['report', { priceIn: 'free' }, /^--price-in must be a number/],
  // compare and leaderboard: the bootstrap group
  ['compare', {}, { seed: 1, resamples: 10_000 }],
  ['compare', { seed: '4294967295', resamples: '100' }, { seed: 4294967295, resamples: 100 }],
  ['compare', { seed: '4294967296' }, /^--seed must be an integer from 0 to 4294967295/],
  ['compare', { resamples: '99' }, /^--resamples must be an integer from 100 to 1000000, got "99"$/],
  [
    'leaderboard',
    {},
    { by: 'reward_errors_as_zero', seed: 1, resamples: 10_000, markdown: false, csv: false, includeIncomplete: false },
  ],
  ['leaderboard', { by: 'bas_correct', resamples: '1e4' }, /^--resamples must be an integer/],
  [
    'leaderboard',
    { by: 'accuracy' },
    /^--by must be one of reward_errors_as_zero, reward, bas_correct, fault_audit, got "accuracy"$/,
  ],
  // report --rollout: repeatable, each value a comma list of I:R or I
  [
    'report',
    { rollout: ['17:0', '3,4:2'] },
    {
      rollout: [
        [17, 0],
        [3, 0],
        [4, 2],
      ],
    },
  ],
  [
    'report',
    { rollout: ['17:x'] },
    /^--rollout must be INDEX:ROLLOUT \(such as 17:0\), or INDEX for rollout 0, got "17:x"$/,
  ],
  ['report', {}, { rollout: [] }],
  // serve
  [
    'serve',
    {},
    { port: 8089, host: '127.0.0.1', policy: 'oracle', latency: 0, rateLimit: 0, seed: 1, apiKey: null, models: null },
  ],
  ['serve', { port: '0', models: 'a, b,', errorRate: '0.5' }, { port: 0, models: ['a', 'b'], errorRate: 0.5 }],
  ['serve', { port: '65536' }, /^--port must be an integer from 0 to 65535/],
  ['serve', { port: '80.0' }, /^--port must be an integer/],
  ['serve', { policy: 'genius' }, /^--policy must be one of oracle, raw-sums, blanket, silent/],
  ['serve', { hangRate: '1.5' }, /^--hang-rate must be a number from 0 to 1/],
  ['serve', { apiKey: '' }, /^--api-key must not be empty$/],
  ['serve', { host: ' ' }, /^--host must not be empty$/],
  ['serve', { models: ',' }, /^--models must name at least one model id$/],
  ['serve', { cutRate: '0.2', stallRate: '0.1', maxRequestMb: '2' }, { cutRate: 0.2, stallRate: 0.1, maxRequestMb: 2 }],
  ['serve', { maxRequestMb: '0' }, /^--max-request-mb must be a number from 0.001 to 1024, got "0"$/],
  ['serve', { wholeSecondRetryAfter: true }, { wholeSecondRetryAfter: true }],
  // reward-server
  [
    'reward-server',
    {},
    { port: 8090, host: '127.0.0.1', tokenVar: null, maxBatch: 4096, maxBodyMb: 64, cacheSize: 20_000, workers: null },
  ],
  ['reward-server', { workers: '0', maxBodyMb: '0.5' }, { workers: 0, maxBodyMb: 0.5 }],
  ['reward-server', { workers: '2.0' }, /^--workers must be an integer from 0 to 64, got "2\.0"$/],
  [
    'reward-server',
    { tokenVar: 'sk-abcdefghijklmnopqrstuvwxyz0123456789' },
    /^--token-var must be the NAME of an environment variable/,
  ],
  ['reward-server', { maxBatch: '0' }, /^--max-batch must be an integer from 1 to 1000000/],
  // sweep: the knobs are lists, each value read by the single flag's parser
  ['sweep', { numTransactions: '12,24, 60' }, { numTransactions: [12, 24, 60], faultRate: null }],
  ['sweep', { numTransactions: '12.0' }, /^--num-transactions must be an integer from 4 to 10000, got "12\.0"$/],
  ['sweep', { numTransactions: '12,3' }, /^--num-transactions must be an integer from 4 to 10000, got "3"$/],
  ['sweep', { numTransactions: '12,,24' }, /^--num-transactions takes a comma-separated list/],
  ['sweep', { numTransactions: '12,12' }, /^--num-transactions lists a value twice/],
  ['sweep', { numTransactions: Array.from({ length: 101 }, (_, i) => i + 4).join(',') }, /list of up to 100 values/],
  ['sweep', { faultRate: '0,0.5,1' }, { faultRate: [0, 0.5, 1] }],
  ['sweep', { faultRate: '0.5,2' }, /^--fault-rate must be a number from 0 to 1, got "2"$/],
];

describe('every command parses its flags from the declaration', () => {
  it.each(rows)('bas %s %j', (command, given, expected) => {
    const read = () => readFlags(COMMAND_FLAGS[command], given);
    if (expected instanceof RegExp) expect(read).toThrow(expected);
    else expect(read()).toMatchObject(expected);
  });
});

describe('one parser per kind of number', () => {
  it.each([
    ['12', 12],
    ['+12', 12],
    ['0', 0],
    [12, 12],
  ])('integer %j reads as %d', (value, n) => expect(parseInteger(value, 'x', 0, 100)).toBe(n));

  it.each(['12.0', '1e1', ' 12', '12 ', '0x0c', '', '1_2', 12.5, '١٢', Number.NaN, '99999999999999999999'])(
    'integer %j is refused',
    (value) => expect(() => parseInteger(value, 'x', 0, Number.MAX_SAFE_INTEGER)).toThrow(/^x must be an integer/),
  );

  it.each([
    ['0.5', 0.5],
    ['.5', 0.5],
    ['5.', 5],
    ['5e-1', 0.5],
    ['-0', -0],
    [0.25, 0.25],
  ])('number %j reads as %d', (value, n) => expect(parseNumber(value, 'x', -1, 10)).toBe(n));

  it.each([' 0.5', '0.5 ', 'Infinity', 'NaN', '0x1', '', '.', '1e', Number.POSITIVE_INFINITY])(
    'number %j is refused',
    (value) => expect(() => parseNumber(value, 'x', -1e9, 1e9)).toThrow(/^x must be a number/),
  );
});

describe('the declaration itself', () => {
  it('a single-valued flag refuses a second value; a repeatable one collects them in order', () => {
    const once = collectOnce(COMMAND_FLAGS.eval.model);
    expect(once('A', undefined)).toBe('A');
    expect(() => once('B', 'A')).toThrow('-m/--model is given twice ("A" and "B"): give it once');
    const many = collectOnce({ ...COMMAND_FLAGS.eval.model, repeatable: true });
    expect(many('B', many('A', undefined))).toEqual(['A', 'B']);
  });

  it.each(COMMAND_NAMES)('bas %s: every help line shows its default once, in one style', (name) => {
    for (const f of Object.values(COMMAND_FLAGS[name])) {
      const line = helpLine(f);
      expect(line.match(/default/g)?.length ?? 0).toBeLessThanOrEqual(1);
      expect(line).not.toMatch(/\(default [^:]/);
      if (f.defaultText !== null && /<[^>]+>/.test(f.flags) && f.defaultText !== 'required')
        expect(line).toContain(`(default: ${f.defaultText.replace(/`/g, '')})`);
    }
  });

  it("serve's --max-request-mb defaults to the server's own cap", async () => {
    const { DEFAULT_MAX_REQUEST_BYTES } = await import('../../src/serve/serve.js');
    expect(COMMAND_FLAGS.serve.maxRequestMb.default * 1024 * 1024).toBe(DEFAULT_MAX_REQUEST_BYTES);
  });

  it('the price range is the same for eval and report; the bootstrap group is shared', () => {
    expect(() => COMMAND_FLAGS.eval.priceIn.parse('2e6', '--price-in')).toThrow(/0 to 1000000/);
    expect(() => COMMAND_FLAGS.report.priceIn.parse('2e6', '--price-in')).toThrow(/0 to 1000000/);
    expect(COMMAND_FLAGS.compare.resamples).toBe(COMMAND_FLAGS.leaderboard.resamples);
  });
});
