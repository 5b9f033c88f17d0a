/**
 * vitest globalSetup of `npm run test:real`: starts the real model behind the real server
 * (scripts/real-model.sh serve: llama.cpp through llama-cpp-python, Gemma 3 270M) on a free
 * loopback port, and stops it when the tests end. A model or server that cannot be had fails
 * the run here, with the script's own words: these tests never skip.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The real server's base URL (`http://127.0.0.1:PORT/v1`). */
    realModelUrl: string;
  }
}

const SCRIPT = join(resolve(import.meta.dirname, '../..'), 'scripts', 'real-model.sh');
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/v1`;
  const child = spawn('bash', [SCRIPT, 'serve', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  // Ready when uvicorn says it is listening (a log line, not a clock), or failed when the
  // child exits first; vitest's hook timeout bounds a server that does neither.
  const ready = new Promise<void>((done, fail) => {
    child.stderr!.on('data', (d: Buffer) => {
      log = (log + d.toString()).slice(-4000);
      if (log.includes('Uvicorn running on')) done();
    });
    child.on('exit', () =>
      fail(new Error(`the real model's server did not start (run scripts/real-model.sh install first):\n${log}`)),
    );
  });
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  await ready;
  project.provide('realModelUrl', url);
  return async () => {
    // The server keeps nothing worth a graceful stop, and SIGTERM waits on a request in flight.
    child.kill('SIGKILL');
    await exited;
  };
}
