/**
 * `bas view` opens a run folder's files by the run folder's own rule (src/runfile, through
 * src/io/open-file.ts): never through a symbolic link, and a FIFO or device is refused at once.
 * A link at results.jsonl once served the start of every line of any file as "damage" and whole
 * records of another run through /api/rollout; a FIFO there stopped every report, and SIGTERM
 * did not stop the server (issue 36, defects 1 and 7).
 */
import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startViewServer, type RunningViewServer } from '../../src/view/server.js';
import { makeRecord, SMALL_CONFIG, writeRun } from '../report/make-run.js';
import { basProcess, startBas, tempDir } from '../support/cli.js';

const SECRET = 'root:x:0:0:the-secret-first-line';
const OTHER_REPLY = 'a reply of a run outside the folder';

function get(url: string, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url.replace(/\/$/, '')}${path}`, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A folder of runs: `good`, `linked` (results.jsonl a link to a file outside), and `fifo` (results.jsonl a FIFO). */
function folder(): { root: string } {
  const base = tempDir('bas-view-files-');
  const root = join(base, 'runs');
  writeRun(join(root, 'good'), { n: 4, model: 'good-model', choose: () => 'oracle' });
  writeRun(join(root, 'linked'), { n: 4, model: 'linked-model', choose: () => 'oracle' });
  const outside = join(base, 'outside.jsonl');
  const record = { ...makeRecord(SMALL_CONFIG, 0, 0, 'linked-model', 'oracle'), reply: OTHER_REPLY };
  writeFileSync(outside, `${JSON.stringify(record)}\n${SECRET}\n`);
  rmSync(join(root, 'linked', 'results.jsonl'));
  symlinkSync(outside, join(root, 'linked', 'results.jsonl'));
  writeRun(join(root, 'fifo'), { n: 4, model: 'fifo-model', choose: () => 'oracle' });
  rmSync(join(root, 'fifo', 'results.jsonl'));
  execFileSync('mkfifo', [join(root, 'fifo', 'results.jsonl')]);
  return { root };
}

describe('bas view and the files of a run folder', () => {
  let root: string;
  let server: RunningViewServer;

  beforeAll(async () => {
    ({ root } = folder());
    server = await startViewServer({
      root,
      port: 0,
      host: '127.0.0.1',
      token: null,
      maxConnections: 64,
      warm: false,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('never reads a results.jsonl that is a symbolic link: no line of the file it names is served', async () => {
    const run = await get(server.url, '/api/run?run=linked');
    expect(run.status).toBe(200);
    expect(JSON.parse(run.text).problem).toMatch(/results\.jsonl is a symbolic link/);
    const rollout = await get(server.url, '/api/rollout?run=linked&index=0&rollout=0');
    expect(rollout.status).toBe(409);
    const rollouts = await get(server.url, '/api/rollouts?run=linked');
    expect(rollouts.status).toBe(409);
    const runs = await get(server.url, '/api/runs');
    for (const answer of [run, rollout, rollouts, runs]) {
      expect(answer.text).not.toContain('root:x');
      expect(answer.text).not.toContain(OTHER_REPLY);
    }
  });

  it('refuses a FIFO at results.jsonl at once, and the other runs still report', async () => {
    const fifo = JSON.parse((await get(server.url, '/api/run?run=fifo')).text);
    expect(fifo.problem).toMatch(/results\.jsonl is a FIFO \(named pipe\), not a regular file/);
    const good = JSON.parse((await get(server.url, '/api/run?run=good')).text);
    expect(good.problem).toBeNull();
    expect(good.text).toContain('good-model');
  });
});

describe('bas view as a process, beside a FIFO', () => {
  it('lists and reports, and stops on SIGTERM', async () => {
    const { root } = folder();
    const child = startBas(['view', root, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    const url = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
    });
    // The first list starts every run's reads; the FIFO's must not hold the others' reports.
    expect((await get(url, '/api/runs')).status).toBe(200);
    expect(JSON.parse((await get(url, '/api/run?run=fifo')).text).problem).toMatch(/FIFO/);
    expect(JSON.parse((await get(url, '/api/run?run=good')).text).text).toContain('good-model');
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});

describe('a special file where a run file should be', () => {
  it('bas report refuses a FIFO at results.jsonl at once, and one at run.json', async () => {
    const { root } = folder();
    const r = await basProcess(['report', join(root, 'fifo')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/results\.jsonl is a FIFO \(named pipe\), not a regular file/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    rmSync(join(root, 'good', 'run.json'));
    execFileSync('mkfifo', [join(root, 'good', 'run.json')]);
    const info = await basProcess(['report', join(root, 'good')]);
    expect(info.code).toBe(2);
    expect(info.stderr).toMatch(/run\.json is a FIFO \(named pipe\), not a regular file/);
  }, 60_000);
});
