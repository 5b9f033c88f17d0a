/**
 * The CLI run inside another process (runCli, tests/support/cli.ts's bas()): each run has its
 * own standard output, standard error and environment, two runs at once keep them apart, and
 * a finished run leaves nothing behind in the process (no signal handler, no exit code, no
 * change to the process's environment). The spawned form gives the same answers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bas, basProcess, serve, tempDir } from '../support/cli.js';
import { hostileServer, sendJson } from '../support/hostile-server.js';

const signals = (): number[] => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];

describe('a run of the CLI inside the test process', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("writes only to its own streams: nothing reaches the process's", async () => {
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const help = await bas(['--help']);
    const usage = await bas(['gen', '--bogus']);
    const gen = await bas(['gen', '-n', '2']);
    const failed = await bas(['report', join(tempDir(), 'nothing-here')]);
    expect(out).not.toHaveBeenCalled();
    expect(err).not.toHaveBeenCalled();
    expect([help.code, help.stdout]).toEqual([0, expect.stringMatching(/^Usage: bas /)]);
    expect([usage.code, usage.stderr]).toEqual([2, "bas: unknown option '--bogus' (see bas gen --help)\n"]);
    expect([gen.code, gen.stdout.trim().split('\n')]).toEqual([0, [expect.any(String), expect.any(String)]]);
    expect([failed.code, failed.stderr]).toEqual([2, expect.stringMatching(/^bas: .*nothing-here/)]);
  });

  it('keeps the outputs of two runs at once apart', async () => {
    const [a, b] = [join(tempDir(), 'a'), join(tempDir(), 'b')];
    const run = (dir: string, n: number) =>
      bas(['eval', '-m', 'builtin:oracle', '-n', String(n), '--output', dir, '--json', '--no-progress']);
    const [ra, rb] = await Promise.all([run(a, 60), run(b, 50)]);
    expect([ra.code, rb.code]).toEqual([0, 0]);
    expect(ra.stderr).toBe(`bas: results in ${a}\n`);
    expect(rb.stderr).toBe(`bas: results in ${b}\n`);
    expect(JSON.parse(ra.stdout).counts.rollouts).toBe(60);
    expect(JSON.parse(rb.stdout).counts.rollouts).toBe(50);
  });

  it('reads its own environment, never the other run’s nor the process’s', async () => {
    const before = { ...process.env };
    const args = ['models', '--base-url', 'http://127.0.0.1:1/v1', '--api-key-var', 'BAS_TEST_RUN_KEY'];
    const [withKey, without] = await Promise.all([
      bas(args, { env: { BAS_TEST_RUN_KEY: 'sk-run-only-1234567890' } }),
      bas(args),
    ]);
    expect(without.stderr).toMatch(/^bas: BAS_TEST_RUN_KEY is not set/);
    expect(withKey.stderr).toMatch(/^bas: cannot list the models of http:\/\/127\.0\.0\.1:1\/v1: connection failed/);
    expect(process.env).toEqual(before);
  });

  it('leaves no signal handler and no exit code behind, however it ends', async () => {
    const dir = tempDir();
    const before = signals();
    expect((await bas(['gen', '-n', '3', '-o', join(dir, 'tasks.jsonl')])).code).toBe(0);
    expect((await bas(['eval', '-m', 'builtin:oracle', '-n', '3', '--output', join(dir, 'run')])).code).toBe(0);
    expect((await bas(['report', join(dir, 'run'), '--html', join(dir, 'r.html')])).code).toBe(0);
    expect((await bas(['gen', '-n', '3', '-o', join(dir, 'no-such-folder', 'x', 'tasks.jsonl')])).code).not.toBe(0);
    expect(signals()).toEqual(before);

    const file = join(dir, 'tasks.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const broken = JSON.parse(lines[0]!);
    broken.key.bas.G1 = '0.01';
    writeFileSync(file, [JSON.stringify(broken), ...lines.slice(1)].join('\n') + '\n');
    const r = await bas(['validate', '--tasks', file]);
    expect(r.code).toBe(1);
    expect(process.exitCode ?? 0).toBe(0);
    // The process wrapper exits with the same code.
    expect((await basProcess(['validate', '--tasks', file])).code).toBe(1);
  });

  it('a server runs until its stop is asked, as SIGTERM would stop it, and leaves no handler behind', async () => {
    const before = signals();
    const served = await serve(['--models', 'm1,m2']);
    expect(signals()).toEqual(before.map((n) => n + 1));
    const models = await bas(['models', '--base-url', served.url, '--api-key-var', 'K'], { env: { K: 'x' } });
    expect([models.code, models.stdout]).toEqual([0, 'm1\nm2\n']);
    expect(served.ended()).toBe(false);
    await served.stop();
    expect(served.ended()).toBe(true);
    expect(signals()).toEqual(before);
  });

  it("hands the SDK the run's organisation and project, as a process's environment would", async () => {
    const server = await hostileServer((_req, res) => sendJson(res, 200, { object: 'list', data: [{ id: 'm' }] }));
    try {
      const args = ['models', '--base-url', server.url, '--api-key-var', 'K'];
      const env = { K: 'x', OPENAI_ORG_ID: 'org-run', OPENAI_PROJECT_ID: 'proj-run' };
      for (const how of [bas, basProcess]) expect((await how(args, { env })).code).toBe(0);
      const sent = server.seen.map((r) => [r.headers['openai-organization'], r.headers['openai-project']]);
      expect(sent).toEqual([
        ['org-run', 'proj-run'],
        ['org-run', 'proj-run'],
      ]);
    } finally {
      await server.close();
    }
  });
});
