/**
 * The `bas view` server in this process: the API's paging and filters (checked against the
 * records themselves), a rollout read back through the index, a damaged folder shown with the
 * rest, a run that grows, the token off loopback, and the folder's bytes unchanged.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, sep } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startViewServer, type RunningViewServer } from '../../src/view/server.js';
import { viewOptions } from '../../src/commands/view.js';
import { readRun } from '../../src/report/read.js';
import { buildComparison } from '../../src/report/compare.js';
import { makeRecord, SMALL_CONFIG, writeRun } from '../report/make-run.js';
import { allFiles, bas, tempDir } from '../support/cli.js';
import { apiParams, EMPTY_QUERY } from '../../src/display/list.js';
import type { RolloutRecord } from '../../src/runfile/record.js';

let root: string;
let server: RunningViewServer;
let records: RolloutRecord[];
let before: string;

function digest(dir: string): string {
  const h = createHash('sha256');
  // The live run grows by the test's own hand; every other file must stay as it was.
  const files = allFiles(dir).filter((f) => !f.path.includes(`${sep}live${sep}`));
  for (const f of files.sort((a, b) => a.path.localeCompare(b.path))) h.update(f.path).update(f.text);
  return h.digest('hex');
}

function get(path: string, headers: Record<string, string> = {}, s = server): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.url.replace(/\/$/, '')}${path}`, { headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // the page
        }
        resolve({ status: res.statusCode!, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const rec = (i: number) => JSON.stringify(makeRecord(SMALL_CONFIG, i, 0, 'm', 'oracle'));

const HIDDEN_REPLY = 'before\u001b[2Jafter\u200bzero <script>alert(1)</script>';

beforeAll(async () => {
  root = tempDir('bas-view-');
  records = writeRun(join(root, 'a'), {
    n: 40,
    rollouts: 2,
    model: 'model-a',
    choose: (i, r) =>
      i === 3 && r === 1
        ? { error: 'timeout' }
        : i === 5
          ? { reply: HIDDEN_REPLY }
          : (i + r) % 3
            ? 'oracle'
            : 'blanket',
  });
  writeRun(join(root, 'nested', 'b'), { n: 40, rollouts: 2, model: 'model-b', choose: () => 'oracle' });
  // A damaged results file: one bad line in the middle; the rest still shows.
  writeRun(join(root, 'damaged'), {
    n: 6,
    model: 'model-d',
    choose: () => 'oracle',
    extraLines: ['{"index": oops', JSON.stringify(makeRecord(SMALL_CONFIG, 6, 0, 'model-d', 'oracle'))],
    runJson: { n: 7 },
  });
  // A damaged run.json.
  writeRun(join(root, 'badinfo'), { n: 3, model: 'model-e', choose: () => 'oracle' });
  writeFileSync(join(root, 'badinfo', 'run.json'), '{ not json');
  mkdirSync(join(root, 'live'));
  writeFileSync(join(root, 'live', 'results.jsonl'), `${rec(0)}\n${rec(1)}\n`);
  before = digest(root);
  server = await startViewServer({ root, port: 0, host: '127.0.0.1', token: null, maxConnections: 64 });
});

afterAll(async () => {
  await server?.close();
});

describe('bas view API', () => {
  it('lists every run under the folder, a damaged one among them', async () => {
    const { status, body } = await get('/api/runs');
    expect(status).toBe(200);
    const ids = body.runs.map((r: { id: string }) => r.id).sort();
    expect(ids).toEqual(['a', 'badinfo', 'damaged', 'live', 'nested/b']);
    const bad = body.runs.find((r: { id: string }) => r.id === 'badinfo');
    expect(bad.status).toBe('damaged');
    expect(bad.problem).toMatch(/run\.json is not valid JSON/);
    const a = body.runs.find((r: { id: string }) => r.id === 'a');
    expect(a).toMatchObject({ model: 'model-a', status: 'complete', expected: 80, endpoint: '127.0.0.1:1' });
  });

  it('pages the rollouts and filters them as the records say', async () => {
    const all = await get('/api/rollouts?run=a&limit=30&offset=10');
    expect(all.body).toMatchObject({ total: 80, matching: 80, offset: 10 });
    expect(all.body.rows).toHaveLength(30);
    expect(all.body.rows[0]).toMatchObject({ index: records[10]!.index, rollout: records[10]!.rollout });
    const count = async (q: string) => (await get(`/api/rollouts?run=a&${q}`)).body.matching;
    expect(await count('errored=1')).toBe(records.filter((r) => r.error).length);
    expect(await count('errored=0')).toBe(records.filter((r) => !r.error).length);
    expect(await count('bas_wrong=1')).toBe(records.filter((r) => !r.error && r.rewards!.bas_correct === 0).length);
    const missed = (code: string) =>
      records.filter((r) => !r.error && ((r.detail?.codes as any)?.[code]?.fn ?? 0) > 0).length;
    const wrong = (code: string) =>
      records.filter((r) => !r.error && ((r.detail?.codes as any)?.[code]?.fp ?? 0) > 0).length;
    for (const code of ['duplicate_invoice', 'gst_on_gst_free']) {
      expect(await count(`missed=${code}`)).toBe(missed(code));
      expect(await count(`wrong=${code}`)).toBe(wrong(code));
    }
    expect(missed('duplicate_invoice') + wrong('gst_on_gst_free')).toBeGreaterThan(0);
    const inRange = records.filter((r) => !r.error && r.reward! >= 0.2 && r.reward! <= 0.9).length;
    expect(await count('reward_min=0.2&reward_max=0.9')).toBe(inRange);
    const consistent = records.filter((r) => r.detail?.consistency?.bas_consistent === 1).length;
    expect(await count('consistency=consistent')).toBe(consistent);
    expect(await count('consistency=unknown')).toBe(records.filter((r) => !r.detail?.consistency).length);
    expect((await get('/api/rollouts?run=a&missed=nope')).status).toBe(400);
    expect((await get('/api/rollouts?run=a&limit=100000')).status).toBe(400);
    expect((await get('/api/rollouts?run=zzz')).status).toBe(404);
    expect((await get('/api/rollouts?run=../../etc')).status).toBe(404);
  });

  it('filters the unparseable replies as the page asks it to, and marks each row', async () => {
    const pair = (r: { index: number; rollout?: number }) => `${r.index}:${r.rollout ?? 0}`;
    const unparsed = records.filter((r) => !r.error && r.metrics?.parsed === 0).map(pair);
    expect(unparsed.length).toBeGreaterThan(0);
    const asked = new URLSearchParams(apiParams({ ...EMPTY_QUERY, show: 'unparseable' })!);
    const { status, body } = await get(`/api/rollouts?run=a&limit=500&${asked.toString()}`);
    expect(status).toBe(200);
    expect(body.rows.map(pair)).toEqual(unparsed);
    expect(body.rows.every((r: { unparseable: boolean }) => r.unparseable)).toBe(true);
    const parsed = await get('/api/rollouts?run=a&unparseable=0');
    expect(parsed.body.matching).toBe(records.length - unparsed.length);
    expect((await get('/api/rollouts?run=a&unparseable=maybe')).status).toBe(400);
  });

  it('opens one rollout: its ledger, key, scores, usage, and the reply made safe', async () => {
    const { status, body } = await get('/api/rollout?run=a&index=5&rollout=0');
    expect(status).toBe(200);
    expect(body.reply).toBe('beforeafter\\u200bzero <script>alert(1)</script>');
    expect(body.task.rows.length).toBe(SMALL_CONFIG.num_transactions);
    expect(Object.keys(body.task.expected_bas)).toEqual(['G1', '1A', '1B', 'net']);
    expect(body.usage).toMatchObject({ prompt_tokens: 1505 });
    const errored = await get('/api/rollout?run=a&index=3&rollout=1');
    expect(errored.body).toMatchObject({ error_type: 'timeout', reward: null, attempts: 1 });
    expect((await get('/api/rollout?run=a&index=99')).status).toBe(404);
  });

  it('reports as bas report does, provenance first', async () => {
    const { body } = await get('/api/run?run=a');
    expect(body.provenance[0][0]).toBe('model');
    expect(body.text).toMatch(/reward distribution/);
    const data = await readRun(join(root, 'a'), () => {});
    expect(body.report.summary.reward).toEqual(JSON.parse(JSON.stringify(data.summary.reward)));
  });

  it('names the damaged line of a results file and shows the rest', async () => {
    const { body } = await get('/api/run?run=damaged');
    expect(body.index).toMatchObject({ rollouts: 7, damaged_lines: 1 });
    expect(body.index.damage[0]).toMatchObject({ line: 7 });
    expect(body.problem).toMatch(/line 7/);
    const list = await get('/api/rollouts?run=damaged&limit=10');
    expect(list.body.matching).toBe(7);
  });

  it('compares two runs with the figures of bas compare, and lists where they disagree', async () => {
    const { body } = await get('/api/compare?a=a&b=nested%2Fb');
    const a = await readRun(join(root, 'a'), () => {});
    const b = await readRun(join(root, 'nested', 'b'), () => {});
    const c = JSON.parse(JSON.stringify(buildComparison([a, b], 1, 10_000)));
    expect(body.comparison.pairings).toEqual(c.pairings);
    expect(body.disagreements.length).toBeGreaterThan(0);
    const d = body.disagreements.map((x: { diff: number }) => Math.abs(x.diff));
    expect(d).toEqual([...d].sort((x, y) => y - x));
  });

  it('follows a run as it appends, a torn last line included', async () => {
    const dir = join(root, 'live');
    const first = await get('/api/rollouts?run=live');
    expect(first.body.total).toBe(2);
    const torn = rec(2);
    appendFileSync(join(dir, 'results.jsonl'), torn.slice(0, 40));
    const mid = await get('/api/rollouts?run=live');
    expect(mid.body).toMatchObject({ total: 2, index: { torn_last_line: true, damaged_lines: 0 } });
    appendFileSync(join(dir, 'results.jsonl'), `${torn.slice(40)}\n${rec(3)}`);
    const after = await get('/api/rollouts?run=live');
    expect(after.body).toMatchObject({ total: 4, index: { torn_last_line: false } });
    appendFileSync(join(dir, 'results.jsonl'), `\n${rec(4)}\n`);
    const last = await get('/api/rollouts?run=live&limit=10');
    expect(last.body.total).toBe(5);
    expect(last.body.rows.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4]);
    expect((await get('/api/rollout?run=live&index=4')).status).toBe(200);
  });

  it('only reads: other methods, bodies and foreign hosts are refused', async () => {
    const post = await new Promise<number>((resolve) => {
      const req = request(`${server.url}api/runs`, { method: 'POST' }, (res) => resolve(res.statusCode!));
      req.end('x');
    });
    expect(post).toBe(405);
    expect((await get('/api/runs', { host: 'evil.example:80' })).status).toBe(421);
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/<script nonce="/);
  });
});

describe('bas view off loopback', () => {
  it('refuses a host other than loopback without a token', () => {
    expect(() => viewOptions(root, { host: '0.0.0.0' }, {})).toThrow(/not loopback.*--token-var/);
    expect(() => viewOptions(root, { host: '0.0.0.0', tokenVar: 'VIEW_T' }, {})).toThrow(/not set/);
    const token = 'sekrit-0123456789';
    expect(viewOptions(root, { host: '0.0.0.0', tokenVar: 'VIEW_T' }, { VIEW_T: token }).token).toBe(token);
    // A token guessed in a few tries is refused off loopback, and taken on it.
    expect(() => viewOptions(root, { host: '0.0.0.0', tokenVar: 'VIEW_T' }, { VIEW_T: 'x' })).toThrow(
      /--token-var VIEW_T: a token of 1 characters off loopback .* use 16 or more/,
    );
    expect(viewOptions(root, { tokenVar: 'VIEW_T' }, { VIEW_T: 'x' }).token).toBe('x');
    // An IPv6 address as a URL writes it is loopback, and listened on bare.
    expect(viewOptions(root, { host: '[::1]' }, {}).host).toBe('::1');
    expect(() => viewOptions(join(root, 'nope'), {}, {})).toThrow(/does not exist/);
  });

  it('refuses --index-dir and --index-max-mb, naming what replaced them', async () => {
    for (const flag of [
      ['--index-dir', root],
      ['--index-max-mb', '200'],
    ]) {
      const r = await bas(['view', root, ...flag]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`${flag[0]} is no longer taken: bas view keeps no index on disk`));
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('needs the bearer token on the API, and then answers', async () => {
    const s = await startViewServer({
      root,
      port: 0,
      host: '127.0.0.1',
      token: 'sekrit',
      maxConnections: 8,
    });
    try {
      expect((await get('/api/runs', {}, s)).status).toBe(401);
      expect((await get('/api/runs', { authorization: 'Bearer wrong!' }, s)).status).toBe(401);
      expect((await get('/api/runs', { authorization: 'Bearer sekrit' }, s)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('the folder', () => {
  it('is left byte for byte as it was', async () => {
    await get('/api/runs');
    for (const id of ['a', 'damaged', 'badinfo', 'nested%2Fb']) await get(`/api/run?run=${id}`);
    expect(digest(root)).toBe(before);
    expect(readFileSync(join(root, 'badinfo', 'run.json'), 'utf8')).toBe('{ not json');
  });
});
