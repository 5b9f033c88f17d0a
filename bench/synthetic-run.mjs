// The synthetic run folder the report and view benches read: the same records, from one writer.
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const CODES = [
  'gst_on_gst_free',
  'gst_miscalculated',
  'duplicate_invoice',
  'outside_period',
  'missing_abn_over_threshold',
];
export const CONFIG = { num_transactions: 24, fault_rate: 0.25, seed: 20260826 };

/** A deterministic pseudo-random stream, so every bench writes the same file. */
export function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * The task of each line when a run with `concurrency` requests in flight writes `n` tasks:
 * handed out in order, each line one of those in flight, drawn at random (a seeded stream).
 */
function* runOrder(n, concurrency) {
  const rand = lcg(11);
  const flight = [];
  let next = 0;
  while (next < n || flight.length > 0) {
    while (flight.length < concurrency && next < n) flight.push(next++);
    const k = Math.floor(rand() * flight.length);
    yield flight[k];
    flight[k] = flight[flight.length - 1];
    flight.pop();
  }
}

/**
 * Writes a synthetic run folder: run.json (status `complete`) and `n` realistic records
 * (replies of some 600 characters, 3% errored, the consistency split included), in large writes.
 * With `concurrency`, the records are in the order a run with that many requests in flight
 * writes them (nearly task order), and run.json says so; without, in task order. Another `seed`
 * gives other outcomes to the same tasks (a second run to diff against the first).
 */
export function writeSyntheticRun(dir, n, { concurrency = null, seed = 7 } = {}) {
  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify({
      bas_version: '0.4.0',
      generator: 3,
      prompt_version: 2,
      model: 'bench/synthetic',
      base_url: 'http://127.0.0.1:1/v1',
      task: CONFIG,
      n,
      rollouts: 1,
      indices: null,
      shard: null,
      ...(concurrency === null ? {} : { concurrency }),
      prices: { in: 0.25, out: 2 },
      status: 'complete',
      started_at: new Date(0).toISOString(),
      ended_at: new Date(3600_000).toISOString(),
      summary: null,
    }),
  );
  const rand = lcg(seed);
  const fd = openSync(join(dir, 'results.jsonl'), 'w');
  let buf = '';
  const order = concurrency === null ? null : runOrder(n, concurrency);
  for (let line = 0; line < n; line++) {
    const i = order === null ? line : order.next().value;
    let rec;
    if (rand() < 0.03) {
      rec = {
        index: i,
        rollout: 0,
        config: CONFIG,
        model: 'bench/synthetic',
        reply: null,
        reward: null,
        rewards: null,
        metrics: null,
        detail: null,
        error: { type: rand() < 0.5 ? 'timeout' : 'provider', message: 'synthetic failure' },
        latency_ms: null,
        usage: null,
        finish_reason: null,
        attempts: 3,
      };
    } else {
      const bas = rand() < 0.3 ? 1 : 0;
      const audit = Math.round(rand() * 1000) / 1000;
      const codes = Object.fromEntries(
        CODES.map((c) => [c, { tp: Math.floor(rand() * 3), fp: Math.floor(rand() * 2), fn: Math.floor(rand() * 2) }]),
      );
      const faults = Object.fromEntries(
        Array.from({ length: 6 }, (_, k) => [`T${String(k * 3 + 1).padStart(2, '0')}`, [CODES[k % 5]]]),
      );
      rec = {
        index: i,
        rollout: 0,
        config: CONFIG,
        model: 'bench/synthetic',
        reply: `Working through the ledger row by row, checking each invoice against the period and the GST rules.\n<answer>${JSON.stringify({ G1: '48211.40', '1A': '3920.11', '1B': '1288.02', net: '2632.09', faults })}</answer>`,
        reward: 0.6 * bas + 0.4 * audit,
        rewards: { bas_correct: bas, fault_audit: audit },
        metrics: {
          bas_label_accuracy: bas ? 1 : 0.5,
          fault_precision: audit,
          fault_recall: audit,
          num_flagged: 6,
          parsed: 1,
        },
        detail: {
          labels: { G1: true, '1A': !!bas, '1B': true, net: !!bas },
          codes,
          unknown_codes: 0,
          consistency: {
            bas_consistent: rand() < 0.5 ? 1 : 0,
            bas_error: null,
            labels: { G1: null, '1A': null, '1B': null, net: null },
          },
        },
        error: null,
        latency_ms: Math.round(2000 + rand() * 30000),
        usage: { prompt_tokens: 3100, completion_tokens: 900, total_tokens: 4000 },
        finish_reason: 'stop',
        attempts: 1,
      };
    }
    buf += JSON.stringify(rec) + '\n';
    if (buf.length > 8_000_000) {
      writeSync(fd, buf);
      buf = '';
    }
  }
  writeSync(fd, buf);
  closeSync(fd);
}

/** GET `path` from the server; resolves to [seconds, body]. */
