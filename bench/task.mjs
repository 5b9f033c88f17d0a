// Benchmarks of the benchmark itself (issue 2): model-free validation speed, the cost of
// generating a row and deriving its key against JSON.stringify of the same row, streaming
// memory of `bas gen`, and start-up time of `bas --help` / `--version` against bare node.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, measureBas, median } from './measure.mjs';

const REPEATS = 5;

function nodeStartSeconds() {
  const t = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0']);
  return Number(process.hrtime.bigint() - t) / 1e9;
}

async function startupRatio(args) {
  const bare = [];
  const ours = [];
  for (let i = 0; i < 9; i++) {
    bare.push(nodeStartSeconds());
    ours.push((await measureBas(args)).seconds);
  }
  return { ratio: median(ours) / median(bare), ours: median(ours), bare: median(bare) };
}

/** In-process: generation + key derivation per row, as a ratio to JSON.stringify of the rows. */
async function costRatio() {
  const { generateLedger } = await import(pathToFileURL(join(ROOT, 'dist/task/generate.js')).href);
  const { deriveKey } = await import(pathToFileURL(join(ROOT, 'dist/task/rules.js')).href);
  const config = { num_transactions: 60, fault_rate: 0.25, seed: 20260826 };
  const ledgers = [];
  const genTimes = [];
  const jsonTimes = [];
  for (let round = 0; round < REPEATS; round++) {
    ledgers.length = 0;
    let t = process.hrtime.bigint();
    for (let i = 0; i < 2000; i++) {
      const { ledger } = generateLedger(config, i);
      deriveKey(ledger);
      ledgers.push(ledger);
    }
    genTimes.push(Number(process.hrtime.bigint() - t));
    t = process.hrtime.bigint();
    let bytes = 0;
    for (const l of ledgers) bytes += JSON.stringify(l.rows).length;
    jsonTimes.push(Number(process.hrtime.bigint() - t));
    if (bytes === 0) throw new Error('nothing serialised');
  }
  const rows = 2000 * 60;
  return {
    ratio: median(genTimes) / median(jsonTimes),
    nsPerRow: median(genTimes) / rows,
    jsonNsPerRow: median(jsonTimes) / rows,
  };
}

export async function benchTask() {
  const rows = [];
  const runs = [];
  for (let i = 0; i < REPEATS; i++)
    runs.push(await measureBas(['validate', '-n', '10000', '--num-transactions', '60']));
  const wall = median(runs.map((r) => r.seconds));
  const cpu = median(runs.map((r) => r.cpuSeconds));
  rows.push({
    name: 'validate -n 10000 --num-transactions 60: wall',
    value: wall,
    unit: 's',
    target: '< 2 s',
    pass: wall < 2,
  });
  rows.push({ name: '  same: CPU time (user + sys)', value: cpu, unit: 's', target: '', pass: null });
  rows.push({ name: '  same: rows per second (wall)', value: 600_000 / wall, unit: 'rows/s', target: '', pass: null });

  const cost = await costRatio();
  rows.push({
    name: 'generate + derive key, per row',
    value: cost.nsPerRow / 1000,
    unit: 'µs',
    target: '',
    pass: null,
  });
  rows.push({
    name: '  as a multiple of JSON.stringify of the same row',
    value: cost.ratio,
    unit: '×',
    target: '',
    pass: null,
  });

  const gen = await measureBas(['gen', '-n', '100000', '--format', 'jsonl']);
  rows.push({
    name: 'gen -n 100000 --format jsonl > /dev/null: peak RSS',
    value: gen.rssMb,
    unit: 'MiB',
    target: '< 150 MB',
    pass: gen.rssMb < 150 && gen.code === 0,
  });
  rows.push({ name: '  same: wall', value: gen.seconds, unit: 's', target: '', pass: null });

  for (const flag of ['--help', '--version']) {
    const s = await startupRatio([flag]);
    rows.push({ name: `bas ${flag} vs node -e 0`, value: s.ratio, unit: '×', target: '<= 1.5×', pass: s.ratio <= 1.5 });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await benchTask()) console.log(r);
}
