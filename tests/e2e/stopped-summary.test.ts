/**
 * Issue 36 §6: the summary of a run its rule stopped is over the tasks the rule used (0 to
 * `last_index`, in index order). Replies of later tasks that landed before the stop are kept
 * in results.jsonl and counted in tokens, and shown apart; they are in no mean or interval.
 *
 * The endpoint holds task 1's request until it has answered 14 others: when task 1 lands, tasks
 * 0 to 15 are all in, the rule (every reply scores 0) is reached after 10 tasks, and tasks 10
 * to 15 landed before the stop. Counts only, no clocks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { hostileServer, sendJson } from '../support/hostile-server.js';
import { bas, tempDir } from '../support/cli.js';

const USAGE = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };

function unparseable(): unknown {
  return {
    id: 'chatcmpl-late',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'no answer' }, finish_reason: 'stop' }],
    usage: USAGE,
  };
}

/** Answers at once, except the second request, held until 14 more have been answered. */
async function lateServer() {
  let received = 0;
  let answered = 0;
  let held: ServerResponse | null = null;
  const server = await hostileServer((_req, res) => {
    received++;
    if (received === 2) {
      held = res;
      return;
    }
    sendJson(res, 200, unparseable());
    answered++;
    if (answered === 15 && held) sendJson(held, 200, unparseable());
  });
  return server;
}

describe('a run stopped by --precision is summarised over the tasks the rule used (issue 36 §6)', () => {
  it('leaves the replies that landed after the stop out of the summary, counts them apart, and keeps their tokens', async () => {
    const server = await lateServer();
    const dir = join(tempDir(), 'run');
    try {
      const args = ['eval', '-m', 'm', '--base-url', server.url, '--api-key-var', 'LATE_KEY'];
      const r = await bas([...args, '-n', '100', '-c', '16', '--precision', '0.3', '--output', dir, '--no-progress'], {
        env: { LATE_KEY: 'sk-late' },
      });
      expect(r.code).toBe(0);
      const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
      expect(run.status).toBe('precision');
      const last: number = run.sequential.last_index;
      expect(run.sequential.tasks).toBe(last + 1);
      const lines = readFileSync(join(dir, 'results.jsonl'), 'utf8').trim().split('\n').length;
      // Some replies of later tasks landed before the stop.
      expect(lines).toBeGreaterThan(last + 1);
      const late = lines - (last + 1);
      // run.json's summary, the report's, in text and JSON: over tasks 0..last_index.
      expect(run.summary.counts.rollouts).toBe(last + 1);
      expect(run.summary.counts.after_stop).toBe(late);
      const report = JSON.parse((await bas(['report', dir, '--json'])).stdout);
      expect(report.summary.counts).toMatchObject({ rollouts: last + 1, tasks: last + 1, after_stop: late });
      expect(report.summary.reward.n).toBe(last + 1);
      // Every reply was paid for: the tokens count all of them.
      expect(report.summary.tokens.total).toBe(20 * lines);
      // The header's time is over the rollouts this session recorded, not the 100 it planned.
      expect(r.stdout).toMatch(new RegExp(`time: +\\S+ \\S+ for ${lines} rollouts`));
      expect(r.stdout).toMatch(new RegExp(`replies after the stop, not in the summary\\s*│\\s*${late} │`));
      const text = (await bas(['report', dir])).stdout.replace(/\s+/g, ' ');
      expect(text).toContain(`the figures cover tasks 0 to ${last}, the ones the rule used; ${late} replies`);
    } finally {
      await server.close();
    }
  });
});
