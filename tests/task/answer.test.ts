import { describe, expect, it } from 'vitest';
import { extractAnswerBlock, parseAnswer, readFigure } from '../../src/task/answer.js';

const ok = (reply: string) => {
  const r = parseAnswer(reply);
  if (!r.ok) throw new Error(`expected a parse, got: ${r.reason}`);
  return r.answer;
};
const bad = (reply: string) => {
  const r = parseAnswer(reply);
  expect(r.ok).toBe(false);
  return r.ok ? '' : r.reason;
};
const body = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ G1: '100.00', '1A': '10.00', '1B': '5.00', net: '5.00', faults: {}, ...extra });

describe('figures', () => {
  it.each([
    [1234.5, 123450],
    ['1,234.50', 123450],
    ['$1234.50', 123450],
    [' $1,234.50 ', 123450],
    ['1234.500', 123450],
    ['-12.3', -1230],
    ['$-12.30', -1230],
    [0, 0],
    ['-0.00', 0],
    [1234, 123400],
  ])('%j reads as %i cents', (raw, cents) => expect(readFigure(raw)).toBe(cents));

  it.each([
    ['1234.501'],
    [1234.501],
    ['abc'],
    [''],
    ['12.3.4'],
    ['1e3'],
    [null],
    [true],
    [{}],
    [['1']],
    ['(12.30)'],
    ['+5'],
    [Number.NaN],
    ['1.0000000000000000000001'],
  ])('%j is not a cent amount', (raw) => expect(readFigure(raw)).toBeNull());
});

describe('the answer block', () => {
  it('uses the last complete block and ignores text outside it', () => {
    const reply = `<answer>{"G1": "1"}</answer> thinking... <answer>${body()}</answer> trailing <answer> unfinished`;
    expect(ok(reply).figures.G1.cents).toBe(10000);
  });
  it('takes the text after the last <answer> before the last </answer>', () => {
    expect(extractAnswerBlock('<answer>a<answer>b</answer>')).toBe('b');
    expect(extractAnswerBlock('x</answer>')).toBeNull();
    expect(extractAnswerBlock('<answer>x')).toBeNull();
    expect(extractAnswerBlock('</answer><answer>x')).toBeNull();
  });
  it.each([['```json\n'], ['```\n'], ['``` json\n'.replace(' ', '')]])('tolerates a fence opened by %j', (open) => {
    expect(ok(`<answer>\n${open}${body()}\n\`\`\`\n</answer>`).figures.net.cents).toBe(500);
  });
  it('matches tags in lower case only', () => bad(`<ANSWER>${body()}</ANSWER>`));
});

describe('unparseable replies', () => {
  it.each([
    ['no block', 'the BAS is fine'],
    ['invalid JSON', '<answer>{G1: 1}</answer>'],
    ['an array', '<answer>[1, 2]</answer>'],
    ['a scalar', '<answer>42</answer>'],
    ['null', '<answer>null</answer>'],
    ['faults missing', `<answer>${JSON.stringify({ G1: '1', '1A': '1', '1B': '1', net: '0' })}</answer>`],
    ['faults null', `<answer>${body({ faults: null })}</answer>`],
    ['faults an array', `<answer>${body({ faults: [] })}</answer>`],
    ['a code list holding a number', `<answer>${body({ faults: { T01: ['outside_period', 3] } })}</answer>`],
    ['a code that is a number', `<answer>${body({ faults: { T01: 3 } })}</answer>`],
    ['a code that is an object', `<answer>${body({ faults: { T01: {} } })}</answer>`],
  ])('%s', (_name, reply) => {
    expect(bad(reply).length).toBeGreaterThan(0);
  });
});

describe('faults', () => {
  it('reads a bare string as a one-element list and trims ids and codes', () => {
    const a = ok(
      `<answer>${body({ faults: { ' T01 ': ' outside_period ', T02: ['gst_miscalculated', 'gst_miscalculated'] } })}</answer>`,
    );
    expect([...a.faults.get('T01')!]).toEqual(['outside_period']);
    expect([...a.faults.get('T02')!]).toEqual(['gst_miscalculated']);
  });
  it('treats __proto__ and constructor as ordinary ids', () => {
    const a = ok(
      `<answer>{"G1":"1","1A":"1","1B":"1","net":"0","faults":{"__proto__":["outside_period"],"constructor":"x"}}</answer>`,
    );
    expect([...a.faults.keys()].sort()).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).outside_period).toBeUndefined();
  });
  it('a missing or unreadable figure is a wrong label, not an unparseable reply', () => {
    const a = ok(`<answer>{"G1": "lots", "1A": "1.00", "faults": {}}</answer>`);
    expect(a.figures.G1.cents).toBeNull();
    expect(a.figures['1B'].cents).toBeNull();
    expect(a.figures['1A'].cents).toBe(100);
  });
});
