/**
 * Replies built to stall a parser. Each would take seconds to minutes with a backtracking
 * pattern; with index scans they grade within vitest's default per-test timeout, which is
 * what fails these tests should a backtracking pattern come back (no timing assertion).
 */
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import {
  MAX_ANSWER_CONTAINERS,
  MAX_ANSWER_DEPTH,
  MAX_ANSWER_KEYS,
  parseAnswer,
  readFigure,
} from '../../src/task/answer.js';
import { scoreReply } from '../../src/task/score.js';
import { generateTask } from '../../src/task/generate.js';

const MB = 1 << 20;
const body = JSON.stringify({
  G1: '100.00',
  '1A': '10.00',
  '1B': '5.00',
  net: '5.00',
  faults: { T01: ['gst_miscalculated'] },
});
const fill = (unit: string, bytes = MB) => unit.repeat(Math.ceil(bytes / unit.length));

/** The hostile replies of the issue, about 1 MB each (bench/hostile.mjs times the same kinds). */
const hostile: Array<[string, string]> = [
  ['spaces after an opening fence', `<answer>\`\`\`${fill(' ')}x</answer>`],
  ['tabs after an opening fence', `<answer>\`\`\`json${fill('\t')}\n${body}\n\`\`\`</answer>`],
  ['a whitespace run before the closing fence', `<answer>\`\`\`\n${body}${fill(' \t')}\`\`\`</answer>`],
  ['a whitespace run before a broken closing fence', `<answer>\`\`\`\n${body}${fill(' ')}\`\`</answer>`],
  ['a whitespace run between two fences', `<answer>\`\`\`${fill(' ')}\`\`\` x</answer>`],
  ['fences repeated', `<answer>${fill('```\n ')}x</answer>`],
  ['an unclosed fence', `<answer>\`\`\`json${fill(' \t')}\r\n${fill(' ')}${body}</answer>`],
  ['unclosed brackets', `<answer>${fill('[')}</answer>`],
  ['deep brackets', `<answer>${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}</answer>`],
  ['deep objects', `<answer>${'{"a":'.repeat(MB / 10)}1${'}'.repeat(MB / 10)}</answer>`],
  ['many tiny lists', `<answer>{"faults": {}, "x": [${fill('[],')}[]]}</answer>`],
  [
    'many fault ids',
    `<answer>{"faults": {${Array.from({ length: MB / 24 }, (_, i) => `"T${i}": ["x"]`).join(',')}}}</answer>`,
  ],
  [
    'many fault ids, codes bare',
    `<answer>{"faults": {${Array.from({ length: MB / 16 }, (_, i) => `"T${i}": "x"`).join(',')}}}</answer>`,
  ],
  ['brackets inside strings', `<answer>{"faults": {}, "x": "${fill('[{')}"}</answer>`],
  ['thousands of opening tags', `${fill('<answer>')}${body}</answer>`],
  ['thousands of closing tags', `<answer>${body}${fill('</answer>')}`],
  ['thousands of broken tags', fill('<answer</answer <answer>x</answe')],
  ['a huge figure', `<answer>{"G1": "${fill('9')}", "faults": {}}</answer>`],
  ['a huge fraction', `<answer>{"G1": "1.${fill('0')}1", "faults": {}}</answer>`],
  ['a figure of symbols', `<answer>{"G1": "${fill('$,')}1", "faults": {}}</answer>`],
  [
    'whitespace everywhere',
    `<answer>${fill(' ')}\`\`\`json${fill(' \t')}\n${body}\n${fill(' ')}\`\`\`${fill('\n')}</answer>`,
  ],
];

describe('hostile replies grade in linear time, with the answer the rules give', () => {
  it.each(hostile)('%s', (name, reply) => {
    const r = parseAnswer(reply);
    // Only the well-formed ones parse; each gets a reason otherwise, never an exception.
    if (name === 'brackets inside strings') {
      expect(r.ok).toBe(true);
    } else if (
      name === 'tabs after an opening fence' ||
      name === 'a whitespace run before the closing fence' ||
      name === 'thousands of opening tags' ||
      name === 'whitespace everywhere'
    ) {
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.answer.figures.net.cents).toBe(500);
    } else if (name.startsWith('a huge') || name === 'a figure of symbols') {
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.answer.figures.G1.cents).toBe(name === 'a figure of symbols' ? 100 : null);
    } else {
      expect(r.ok).toBe(false);
    }
  });

  it('scores a hostile reply as unparseable, through the scorer', () => {
    const task = generateTask({ num_transactions: 8, fault_rate: 0.25, seed: 1 }, 0);
    const s = scoreReply(hostile[0]![1], task.key);
    expect(s.metrics.parsed).toBe(0);
    expect(s.reward).toBe(0);
  });
});

// The rules as the old regular expressions wrote them: a reference for short inputs only,
// where backtracking costs nothing. The index scans must agree with it everywhere.
const OLD_FENCE = /^```[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```$/;
function oldUnfenced(block: string): string {
  const body = block.trim();
  const m = OLD_FENCE.exec(body);
  return m ? m[1]!.trim() : body;
}
function oldFigure(raw: unknown): number | null {
  let text: string;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return null;
    text = String(raw);
  } else if (typeof raw === 'string') text = raw.replace(/[$,]/g, '').trim();
  else return null;
  if (!/^-?\d+(\.\d+)?$/.test(text)) return null;
  const v = new Decimal(text);
  if (v.decimalPlaces() > 2 || v.abs().greaterThan(Math.floor(Number.MAX_SAFE_INTEGER / 100))) return null;
  return v.times(100).toNumber() + 0;
}

describe('the shape bounds checked before JSON.parse', () => {
  const nested = (depth: number) =>
    `<answer>{"faults": {}, "G1": ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}</answer>`;
  it('accept 32 levels and refuse 33', () => {
    expect(parseAnswer(nested(MAX_ANSWER_DEPTH)).ok).toBe(true);
    const r = parseAnswer(nested(MAX_ANSWER_DEPTH + 1));
    expect(r.ok ? '' : r.reason).toBe('the answer nests deeper than 32 levels');
  });
  it('accept a claim on every row of the largest ledger', () => {
    const faults = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, i) => [`T${i}`, ['gst_miscalculated', 'duplicate']]),
    );
    const r = parseAnswer(`<answer>${JSON.stringify({ faults })}</answer>`);
    expect(r.ok && r.answer.faults.size).toBe(10_000);
  });
  it('refuse more lists and objects than any honest answer holds', () => {
    const r = parseAnswer(`<answer>{"faults": {}, "x": [${'{},'.repeat(MAX_ANSWER_CONTAINERS)}{}]}</answer>`);
    expect(r.ok ? '' : r.reason).toBe('the answer holds more than 12000 lists and objects');
    const keys = Array.from({ length: MAX_ANSWER_KEYS }, (_, i) => `"k${i}": 1`).join(',');
    const k = parseAnswer(`<answer>{"faults": {}, "x": {${keys}}}</answer>`);
    expect(k.ok ? '' : k.reason).toBe('the answer holds more than 12000 object keys');
  });
  it('do not count brackets in strings, escaped quotes included', () => {
    const r = parseAnswer(`<answer>{"faults": {"T\\"[[": ["a\\"{"]}, "x": "${'['.repeat(100)}"}</answer>`);
    expect(r.ok && [...r.answer.faults.keys()]).toEqual(['T"[[']);
  });
});

describe('the index scans agree with the rules as first written', () => {
  const pieces = [
    '```',
    '`',
    'json',
    'js-on_1',
    ' ',
    '\t',
    '\r',
    '\n',
    '\r\n',
    '{}',
    '{"faults": {}}',
    '[1]',
    '42',
    'x',
    '\u00a0',
    '\ufeff',
  ];
  it('fences', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const block = parts.join('');
        const reply = `<answer>${block}</answer>`;
        const r = parseAnswer(reply);
        let expected: string;
        try {
          const data = JSON.parse(oldUnfenced(block)) as unknown;
          expected = data === null || typeof data !== 'object' || Array.isArray(data) ? 'not an object' : 'object';
        } catch {
          expected = 'invalid';
        }
        const got = r.ok
          ? 'object'
          : r.reason.includes('not valid JSON')
            ? 'invalid'
            : r.reason.includes('not a JSON object')
              ? 'not an object'
              : 'object';
        expect(got).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
  it('figures', () => {
    const chars = fc.constantFrom('0', '1', '9', '.', '-', '$', ',', ' ', '+', 'e', '\t', '\u00a0');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(chars, { maxLength: 20 }).map((a) => a.join('')),
          fc.double(),
          fc.integer(),
        ),
        (raw) => {
          expect(readFigure(raw)).toBe(oldFigure(raw));
        },
      ),
      { numRuns: 5000 },
    );
  });
  it('figures near the bounds', () => {
    for (const raw of [
      '90071992547409.91',
      '90071992547409.92',
      '090071992547409.91',
      '900719925474099',
      '-90071992547409.91',
      '0.10',
      '00',
      '-0',
      '1.',
      '.5',
    ]) {
      expect(readFigure(raw)).toBe(oldFigure(raw));
    }
  });
});
