/** Runs the built CLI (`npm test` builds first) and captures what it printed. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BIN = join(__dirname, '../../bin/bas.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function bas(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    input: options.input,
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function tempDir(prefix = 'bas-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
