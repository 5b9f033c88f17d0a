/**
 * Issue 36 §2 and §3: a budget holds across resumes and against endpoints that bill more than
 * they were asked to. Replies without usage are charged at their worst case, the charge is
 * kept in run.json, a resume starts from it and `bas report` shows it; a reply billed past
 * `--max-tokens` (or with reasoning counted only in `total_tokens`) raises what later requests
 * reserve, and its excess is counted. Counts of requests and tokens only, no clocks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostileServer, sendJson, type HostileServer } from '../support/hostile-server.js';
import { bas, tempDir } from '../support/cli.js';

const ENV = { BUDGET_KEY: 'sk-budget-test' };

/** A chat completion saying `content`, with `usage` (none when null). */
function reply(content: string, usage: Record<string, number> | null): unknown {
  return {
    id: 'chatcmpl-budget',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    ...(usage ? { usage } : {}),
  };
}

/** An endpoint answering every request with `usage`, counting the requests and the tokens it billed. */
async function billingServer(usage: Record<string, number> | null, billed: number) {
  const counts = { requests: 0, tokens: 0 };
  const server: HostileServer = await hostileServer((_req, res) => {
    counts.requests++;
    counts.tokens += billed;
    sendJson(res, 200, reply('<answer>{}</answer>', usage));
  });
  return { server, counts };
}

function evalArgs(url: string, dir: string, budget: number, extra: string[] = []): string[] {
  return [
    'eval',
    '-m',
    'm',
    '--base-url',
    url,
    '--api-key-var',
    'BUDGET_KEY',
    '-n',
    '60',
    '-c',
    '4',
    '--max-tokens',
    '300',
    '--max-total-tokens',
    String(budget),
    '--max-retries',
    '0',
    ...(extra.includes('--resume') ? [] : ['--output', dir]),
    '--no-progress',
    ...extra,
  ];
}

describe('a budget across resumes, against replies that report no usage (issue 36 §2)', () => {
  it('records the worst case charged, so a resume with the same budget sends nothing more, and the report shows it', async () => {
    const { server, counts } = await billingServer(null, 0);
    const dir = join(tempDir(), 'run');
    try {
      const first = await bas(evalArgs(server.url, dir, 20_000), { env: ENV });
      expect(first.stderr).toMatch(/the budget is spent/);
      const sent = counts.requests;
      expect(sent).toBeGreaterThan(0);
      const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
      const charged = run.sessions[0].spend.unreported;
      expect(charged.requests).toBe(sent);
      // Each was charged its worst case: its prompt's estimate and the 300 tokens it may write.
      expect(charged.completion).toBe(300 * sent);
      expect(charged.prompt + charged.completion).toBeLessThanOrEqual(20_000);
      // Three resumes with the same budget: the charge is where the first left it, so nothing is sent.
      for (let k = 0; k < 3; k++) {
        const again = await bas(evalArgs(server.url, dir, 20_000, ['--resume', dir]), { env: ENV });
        expect(again.stderr).toMatch(/the budget is spent/);
      }
      expect(counts.requests).toBe(sent);
      const report = await bas(['report', dir, '--json']);
      const r = JSON.parse(report.stdout);
      expect(r.summary.tokens.unreported).toEqual({ requests: sent, prompt: charged.prompt, completion: 300 * sent });
      expect(r.cost.lower_bound).toBe(true);
      expect(r.cost.unreported_requests).toBe(sent);
      const text = (await bas(['report', dir])).stdout;
      expect(text).toMatch(/total tokens, at least\s*│\s*0 │/);
      expect(text).toContain(`not counted: ${sent} replies without usage`);
    } finally {
      await server.close();
    }
  });
});

describe('a budget against endpoints that bill past what was asked (issue 36 §3)', () => {
  it('an endpoint that ignores --max-tokens: later requests reserve what it billed, and it stays under the budget after the first replies', async () => {
    // Every reply bills 5,000 completion tokens though --max-tokens is 300.
    const usage = { prompt_tokens: 1000, completion_tokens: 5000, total_tokens: 6000 };
    const { server, counts } = await billingServer(usage, 6000);
    const dir = join(tempDir(), 'run');
    try {
      await bas(evalArgs(server.url, dir, 40_000), { env: ENV });
      // Slow start sends one request alone; once it shows 5,000 tokens, each later request
      // reserves 7,500, so the run stops before the budget, not five requests past it.
      expect(counts.tokens).toBeLessThanOrEqual(40_000);
      expect(counts.requests).toBeGreaterThan(1);
    } finally {
      await server.close();
    }
  });

  it('reasoning billed only in total_tokens: counted as completion in tokens, budget and cost', async () => {
    // completion_tokens says 100, total_tokens says 5,100 more was billed (reasoning).
    const usage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 6100 };
    const { server, counts } = await billingServer(usage, 6100);
    const dir = join(tempDir(), 'run');
    try {
      const r = await bas(evalArgs(server.url, dir, 40_000, ['--price-in', '1', '--price-out', '10']), { env: ENV });
      expect(counts.tokens).toBeLessThanOrEqual(40_000);
      const n = counts.requests;
      const report = JSON.parse((await bas(['report', dir, '--json'])).stdout);
      expect(report.summary.tokens.completion).toBe(5100 * n);
      expect(report.summary.tokens.beyond_completion).toBe(5000 * n);
      expect(report.cost.output_usd).toBeCloseTo((5100 * n * 10) / 1e6, 9);
      // The stop message's spend and the tokens used agree.
      expect(r.stderr).toMatch(new RegExp(`it used ${(6100 * n).toLocaleString('en-US')} tokens`));
      expect((await bas(['report', dir])).stdout).toMatch(/of which beyond completion_tokens\s*│\s*[\d,]+ │/);
    } finally {
      await server.close();
    }
  });
});
