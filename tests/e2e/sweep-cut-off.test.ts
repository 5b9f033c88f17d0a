/**
 * A budget sweep meets a budget the model fails at (issue 36): `--max-tokens 700` with the
 * reasoning efforts minimal..high against a model that thinks 100..800 tokens, so at `high`
 * every reply is cut off by the limit. That point is a real point of the curve (a score of 0):
 * it is recorded and the sweep goes on, exit 0; a plain resume sends no request for it. It used
 * to stop the sweep with exit 1, and each resume spent three more requests to stop again; a
 * plain resume with no endpoint flag then asked for --base-url though it sends nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bas, serve, tempDir, type Served } from '../support/cli.js';

const servers: Served[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

const requests = async (s: Served): Promise<number> =>
  ((await (await fetch(`${s.url}/bas/stats`)).json()) as { requests: number }).requests;

describe('bas sweep at a budget the model fails at', () => {
  it('records the point as 0 and goes on; a plain resume sends nothing for it', async () => {
    const s = await serve(['--reasoning-tokens', '400']);
    servers.push(s);
    const out = join(tempDir(), 'sweep');
    const env = { env: { OPENAI_API_KEY: 'sk-test' } };
    const r = await bas(
      [
        'sweep',
        '-m',
        'm',
        '--base-url',
        s.url,
        '-n',
        '6',
        '--max-tokens',
        '700',
        '--reasoning-effort',
        'minimal,low,medium,high',
        '--output',
        out,
        '--no-progress',
        '--json',
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /\[4\/4\] reasoning effort high: n 0\/6, reward 0\.000 \[0\.000, 0\.561\], 3 errored \(every reply cut off by the token limit: recorded as 0\)/,
    );
    expect(r.stderr).toMatch(/a new sweep into another --output with a larger --max-tokens/);
    const points = JSON.parse(r.stdout).points as Array<{
      reasoning_effort: string;
      cut_off: boolean;
      measures: { reward: { mean: number | null } };
    }>;
    expect(points.map((p) => [p.reasoning_effort, p.cut_off, p.measures.reward.mean])).toEqual([
      ['minimal', false, 1],
      ['low', false, 1],
      ['medium', false, 1],
      ['high', true, 0],
    ]);
    const sent = await requests(s);
    // 6 answered at each of three efforts, 3 cut off at the fourth.
    expect(sent).toBe(3 * 6 + 3);
    const again = await bas(['sweep', '--resume', out, '--base-url', s.url, '--no-progress'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/reasoning effort high \(resumed\): every reply cut off .* not run again/);
    expect(again.stdout).toMatch(/note \(reasoning effort high\): every reply was cut off by the token limit/);
    expect(await requests(s)).toBe(sent);
    // Every point finished or recorded as cut off: nothing will be sent, so a plain resume
    // needs no endpoint confirmed (it used to ask for --base-url because of the cut-off point).
    const plain = await bas(['sweep', '--resume', out, '--no-progress'], { env: {} });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(/reasoning effort high \(resumed\): every reply cut off .* not run again/);
    expect(await requests(s)).toBe(sent);
    const plan = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(plan.points).toHaveLength(4);
  });
});
