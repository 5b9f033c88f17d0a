/**
 * `bas view [DIR]`: a local web app over the runs and sweeps under DIR (default `runs/`),
 * until SIGINT or SIGTERM; with `--bundle FILE`, the same app and DIR's runs in one file instead. It only reads the folder. Bound off loopback it needs a token,
 * read from an environment variable (never the command line, where `ps` shows it).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../errors/index.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags, tokenFromVar } from '../settings/flag.js';
import { listenError, runUntilStopped } from '../serve/http-service.js';
import { isLoopback, startViewServer, type ViewServerOptions } from '../view/server.js';
import { checkOutputs } from '../settings/output-paths.js';
import * as std from '../io/std.js';

/** The shortest token a server bound off loopback takes: anyone who reaches it may try tokens. */
const MIN_TOKEN_CHARS = 16;

const parseFlags = (given: Record<string, unknown>) => readFlags(COMMAND_FLAGS.view, given);
type ViewFlags = ReturnType<typeof parseFlags>;

/** Checks the folder and the flags, and reads the token; every bad value names its flag. */
export function viewOptions(
  dir: string | undefined,
  given: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): ViewServerOptions {
  return serverOptions(viewRoot(dir), parseFlags(given), env);
}

/** The folder viewed, checked: it exists and is a folder. */
function viewRoot(dir: string | undefined): string {
  const root = resolve(dir ?? 'runs');
  let st;
  try {
    st = statSync(root);
  } catch {
    throw new ConfigError(
      `${dir ?? 'runs'} does not exist: name a folder of run folders (bas eval writes them under runs/)`,
    );
  }
  if (!st.isDirectory()) throw new ConfigError(`${dir} is not a folder: name a folder of run folders, or a run folder`);
  return root;
}

/** The server's options: a host off loopback takes a token long enough not to be guessed. */
function serverOptions(root: string, f: ViewFlags, env: NodeJS.ProcessEnv): ViewServerOptions {
  const token = tokenFromVar(f.tokenVar, env);
  const host = f.host!;
  if (!isLoopback(host) && token === null)
    throw new ConfigError(
      `--host ${host} is not loopback: anyone who reaches it could read the runs, so give --token-var NAME too`,
    );
  if (!isLoopback(host) && token !== null && token.length < MIN_TOKEN_CHARS)
    throw new ConfigError(
      `--token-var ${f.tokenVar}: a token of ${token.length} characters off loopback is guessed in a few tries; use ${MIN_TOKEN_CHARS} or more (openssl rand -hex 16 makes one)`,
    );
  return {
    root,
    port: f.port,
    host,
    token,
    maxConnections: f.maxConnections,
  };
}

/** Writes the bundle of `--bundle FILE` (every run under the folder, every rollout, the app). */
async function bundle(root: string, file: string): Promise<void> {
  const { writeBundle } = await import('../view/bundle.js');
  checkOutputs([{ flag: '--bundle', path: file, kind: 'file', inputs: [root] }]);
  const n = await writeBundle(root, file);
  std
    .stdout()
    .write(
      `bas view: bundle of ${n.runs} run(s) and ${n.rollouts.toLocaleString('en-US')} rollouts written to ${file} (${(n.bytes / 1048576).toFixed(1)} MB); open it in a browser\n`,
    );
}

/** Serves until a signal; with --bundle, writes the bundle and ends. */
export async function view(dir: string | undefined, flags: Record<string, unknown>): Promise<void> {
  const f = parseFlags(flags);
  const root = viewRoot(dir);
  // A bundle serves nothing: the host and token are a server's, not asked of it.
  if (f.bundle !== null) return bundle(root, f.bundle);
  const o = serverOptions(root, f, std.env());
  const server = await startViewServer(o).catch((err: unknown) => {
    throw listenError(err, o.host, o.port);
  });
  std
    .stdout()
    .write(
      `bas view: listening on ${server.url} (the runs under ${o.root}${o.token ? '; add ?token=… to the address' : ''})\n`,
    );
  await runUntilStopped(server, (signal) => std.stderr().write(`bas view: ${signal}: stopping\n`));
}
