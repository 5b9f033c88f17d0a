// `npm run bench`: every speed and memory target of the project, measured on this machine.
// Each section is a module exporting an async function that returns rows
// {name, value, unit, target, pass}; pass is null for figures shown for information.
// Pick sections with arguments: `npm run bench -- task report`; `suite` runs only when named.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { ROOT } from './measure.mjs';

const SECTIONS = [
  ['task', 'task.mjs', 'benchTask', 'The benchmark: generation, validation, start-up'],
  ['eval', 'eval.mjs', 'benchEval', 'bas eval against bas serve over loopback HTTP'],
  [
    'memory',
    'memory.mjs',
    'benchMemory',
    'Peak memory of a long eval (built-in model, and against bas serve), started without node flags',
  ],
  [
    'replies',
    'reply-memory.mjs',
    'benchReplyMemory',
    'Peak memory of bas eval under the budget for replies in flight: 64 replies of 30 MB at -c 64',
  ],
  ['report', 'report.mjs', 'benchReport', 'bas report on a large run'],
  ['view', 'view.mjs', 'benchView', 'bas view on runs of 100,000 and 1,000,000 rollouts: opening times, server memory'],
  ['compare', 'compare.mjs', 'benchCompare', 'bas compare and bas leaderboard (tiers) of 100,000-task runs'],
  ['hostile', 'hostile.mjs', 'benchHostile', 'Grading hostile ~1 MB replies'],
  [
    'sequential',
    'sequential.mjs',
    'benchSequential',
    'Spending what a verdict needs: tasks per verdict against a fixed design, slow start, a budget',
  ],
  ['pace', 'pace.mjs', 'benchPace', 'bas eval against a rate-limited bas serve (rate limits as a pace)'],
  ['reward', 'reward.mjs', 'benchReward', 'bas reward-server: batches of 256 graded over loopback HTTP'],
  [
    'servers',
    'servers.mjs',
    'benchServers',
    'The two servers under hostile load: unfinished bodies, 10,000-row ledgers',
  ],
  // Several minutes, and Python packages installed outside the repository, so only when named.
  [
    'peers',
    'peers.mjs',
    'benchPeers',
    'Beside inspect_ai and verifiers: the same prompts and endpoints, wall / floor, CPU, memory, kill -9',
    'named',
  ],
  // Several minutes, so only when named: `npm run bench -- suite`.
  ['suite', 'suite.mjs', 'benchSuite', 'The test suite (npm test), as the machine is and under load', 'named'],
];

function show(value) {
  if (typeof value !== 'number') return String(value);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2);
}

const wanted = process.argv.slice(2);
let failed = 0;
for (const [id, file, fn, title, only] of SECTIONS) {
  if (wanted.length > 0 ? !wanted.includes(id) : only === 'named') continue;
  console.log(`\n## ${title} (${id})`);
  const mod = await import(pathToFileURL(join(ROOT, 'bench', file)).href);
  const rows = await mod[fn]();
  for (const r of rows) {
    const verdict = r.pass === null || r.pass === undefined ? '' : r.pass ? 'PASS' : 'FAIL';
    if (r.pass === false) failed++;
    console.log(
      `${r.name.padEnd(58)} ${show(r.value).padStart(10)} ${String(r.unit).padEnd(7)} ${String(r.target ?? '').padEnd(12)} ${verdict}`,
    );
  }
}
console.log(failed === 0 ? '\nAll targets met.' : `\n${failed} target(s) missed.`);
process.exitCode = failed === 0 ? 0 : 1;
