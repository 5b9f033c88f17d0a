// Hostile replies (issue 9 §1): grading speed, in bytes per second, of the slowest of a set
// of ~1 MB replies built to stall a parser, as a ratio to JSON.parse of a ~1 MB object. A
// ratio of 0.1 means the worst reply grades at a tenth of the speed of plain JSON parsing.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, median } from './measure.mjs';

const MB = 1 << 20;
const REPEATS = 5;
const fill = (unit, bytes = MB) => unit.repeat(Math.ceil(bytes / unit.length));

function hostileReplies() {
  const body = JSON.stringify({
    G1: '100.00',
    '1A': '10.00',
    '1B': '5.00',
    net: '5.00',
    faults: { T01: ['gst_miscalculated'] },
  });
  return {
    'spaces after a fence': `<answer>\`\`\`${fill(' ')}x</answer>`,
    'tabs in a fence line': `<answer>\`\`\`json${fill('\t')}\n${body}\n\`\`\`</answer>`,
    'spaces before a broken close': `<answer>\`\`\`\n${body}${fill(' ')}\`\`</answer>`,
    'repeated fences': `<answer>${fill('```\n ')}x</answer>`,
    'whitespace around JSON': `<answer>${fill(' \n')}${body}${fill('\t ')}</answer>`,
    'unclosed brackets': `<answer>${fill('[')}</answer>`,
    'deep brackets': `<answer>${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}</answer>`,
    'opening tags': `${fill('<answer>')}${body}</answer>`,
    'closing tags': `<answer>${body}${fill('</answer>')}`,
    'broken tags': fill('<answer</answer <answer>x</answe'),
    'huge figure': `<answer>{"G1": "${fill('9')}", "faults": {}}</answer>`,
    'figure of symbols': `<answer>{"G1": "${fill('$,')}1", "faults": {}}</answer>`,
    'many tiny lists': `<answer>{"faults": {}, "x": [${fill('[],')}[]]}</answer>`,
    'many fault ids': `<answer>{"faults": {${Array.from({ length: MB / 16 }, (_, i) => `"T${i}": "x"`).join(',')}}}</answer>`,
    'many strings': `<answer>{"faults": {}, "x": [${fill('"a",')}"a"]}</answer>`,
  };
}

function bytesPerSecond(fn, bytes) {
  const times = [];
  for (let i = 0; i < REPEATS; i++) {
    const t = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e9);
  }
  return bytes / median(times);
}

export async function benchHostile() {
  const { scoreReply } = await import(pathToFileURL(join(ROOT, 'dist/task/score.js')).href);
  const { generateTask } = await import(pathToFileURL(join(ROOT, 'dist/task/generate.js')).href);
  const { key } = generateTask({ num_transactions: 24, fault_rate: 0.25, seed: 1 }, 0, { prompt: false });
  const object = JSON.stringify({
    rows: Array.from({ length: MB / 64 }, (_, i) => ({ id: `T${i}`, amount: i * 1.25, ok: i % 2 === 0 })),
  });
  const jsonSpeed = bytesPerSecond(() => JSON.parse(object), object.length);
  let worst = { name: '', ratio: Infinity };
  for (const [name, reply] of Object.entries(hostileReplies())) {
    const ratio = bytesPerSecond(() => scoreReply(reply, key), reply.length) / jsonSpeed;
    if (process.env.BAS_BENCH_VERBOSE) console.log(`  ${name}: ${ratio.toFixed(2)}`);
    if (ratio < worst.ratio) worst = { name, ratio };
  }
  return [
    { name: 'JSON.parse of a ~1 MB object', value: jsonSpeed / MB, unit: 'MiB/s', target: '', pass: null },
    {
      name: `worst hostile reply grading speed / JSON.parse (${worst.name})`,
      value: worst.ratio,
      unit: 'x',
      target: '>= 0.1',
      pass: worst.ratio >= 0.1,
    },
  ];
}
