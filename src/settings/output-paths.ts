/**
 * The check every command makes of the paths it will write, before any request and any
 * work: a file output must be writable where it is named (its folder exists and takes
 * files), must not be one of the command's inputs (by identity: links and `./` caught), and
 * must not lie inside a folder the command itself fills (a sweep's folder, a run folder); a
 * folder output must be creatable (its nearest existing ancestor is a writable folder).
 * A command that finds out only after its work that it cannot write its result has wasted
 * the work, and requests cost money.
 */
import { accessSync, constants, lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { ConfigError } from '../errors.js';
import { refuseOutputOverInput } from '../io/output.js';

/** One output of a command. */
export interface OutputPath {
  /** How errors name it: `--html`, `-o/--out`. */
  flag: string;
  /** Nothing to check when not given. */
  path: string | null | undefined;
  kind: 'file' | 'folder';
  /** Files the command reads: a file output may not be one of them. */
  inputs?: readonly string[];
  /** Folders the command writes itself: a file output may not lie inside them. */
  owned?: readonly string[];
}

function statOrNull(path: string, how: (p: string) => Stats = statSync): Stats | null {
  try {
    return how(path);
  } catch {
    return null;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The real path of `p`, or of its nearest existing ancestor with the rest appended. */
function realish(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : `${realish(parent)}${sep}${abs.slice(parent.length).replace(/^[/\\]+/, '')}`;
  }
}

function inside(path: string, folder: string): boolean {
  const p = realish(path);
  const f = realish(folder);
  return p === f || p.startsWith(f.endsWith(sep) ? f : f + sep);
}

function checkFile(o: OutputPath & { path: string }): void {
  const named = `${o.flag} ${o.path}`;
  refuseOutputOverInput(o.path, o.flag, o.inputs ?? []);
  // Before the folder checks: a folder the command fills may not exist yet.
  for (const folder of o.owned ?? []) {
    if (inside(o.path, folder))
      throw new ConfigError(
        `${named} is inside ${folder}, which this command writes itself: choose a file outside that folder`,
      );
  }
  let target = o.path;
  const link = statOrNull(o.path, lstatSync);
  if (link?.isSymbolicLink()) {
    const st = statOrNull(o.path);
    if (!st) throw new ConfigError(`${named} is a link to nothing that exists; give a file name`);
    target = realpathSync(o.path);
  }
  const st = statOrNull(target);
  if (st?.isDirectory()) throw new ConfigError(`${named} is a folder; give a file name`);
  if (st && !st.isFile()) {
    // A pipe or a device (/dev/stdout) is written straight into.
    if (!writable(target)) throw new ConfigError(`${named} cannot be written (permission denied)`);
  } else {
    const parent = dirname(resolve(target));
    const pst = statOrNull(parent);
    if (!pst) throw new ConfigError(`${named}: the folder ${parent} does not exist`);
    if (!pst.isDirectory()) throw new ConfigError(`${named}: ${parent} is not a folder`);
    if (!writable(parent)) throw new ConfigError(`${named}: cannot write in ${parent} (permission denied)`);
  }
}

function checkFolder(o: OutputPath & { path: string }): void {
  const named = `${o.flag} ${o.path}`;
  const st = statOrNull(o.path);
  if (st) {
    if (!st.isDirectory()) throw new ConfigError(`${named} is a file, not a folder`);
    if (!writable(o.path)) throw new ConfigError(`${named}: cannot write in it (permission denied)`);
    return;
  }
  // Made with its missing parents: the nearest existing ancestor must take new folders.
  let at = dirname(resolve(o.path));
  for (;;) {
    const a = statOrNull(at);
    if (a) {
      if (!a.isDirectory()) throw new ConfigError(`${named}: ${at} is not a folder`);
      if (!writable(at)) throw new ConfigError(`${named}: cannot create it in ${at} (permission denied)`);
      return;
    }
    const up = dirname(at);
    if (up === at) return;
    at = up;
  }
}

/** Checks every output path of a command; throws a ConfigError (exit 2) naming the flag and the cause. */
export function checkOutputs(outputs: readonly OutputPath[]): void {
  for (const o of outputs) {
    if (o.path === null || o.path === undefined) continue;
    if (o.kind === 'file') checkFile(o as OutputPath & { path: string });
    else checkFolder(o as OutputPath & { path: string });
  }
}
