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
/** Loading a 250 MB model on a busy 2-core machine takes seconds; this bounds a server that never answers. */
const READY_WITHIN_MS = 180_000;

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

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/models`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/v1`;
  const child = spawn('bash', [SCRIPT, 'serve', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  const deadline = Date.now() + READY_WITHIN_MS;
  while (!(await answers(url))) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the real model's server did not start (run scripts/real-model.sh install first):\n${log}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the real model's server did not answer within ${READY_WITHIN_MS / 1000} s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  project.provide('realModelUrl', url);
  return async () => {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };
}
