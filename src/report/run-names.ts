/**
 * Telling runs apart in reports. Two runs of one model (a retry, another temperature) must
 * not look like one run in a table, chart or title, so a run is named by its model, and by
 * its folder too wherever another run shares the model; the same folder given twice is
 * refused, since comparing a run with itself can only show "no difference".
 */
import { realpathSync, statSync } from 'node:fs';
import { ConfigError } from '../errors/index.js';
import { locateRun } from '../runfile/read.js';

/** Path parts of a folder, empty ones (from "./", "a//b" or a trailing slash) dropped. */
function parts(dir: string): string[] {
  return dir.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
}

/**
 * The shortest tail of each folder path that tells it apart from the other folders of the
 * same model: `runs/a/x` and `runs/b/x` become `a/x` and `b/x`.
 */
function distinctTails(dirs: string[]): string[] {
  const split = dirs.map(parts);
  return split.map((p, i) => {
    for (let k = 1; k <= p.length; k++) {
      const tail = p.slice(-k).join('/');
      if (split.every((q, j) => j === i || q.slice(-k).join('/') !== tail)) return tail;
    }
    return p.join('/') || dirs[i]!;
  });
}

/**
 * A display name per run: the model alone where it is the only run of that model, else
 * "model · folder" with the shortest folder tail that tells the runs apart.
 */
export function runNames(runs: ReadonlyArray<{ model: string; dir: string }>): string[] {
  const byModel = new Map<string, number[]>();
  runs.forEach((r, i) => byModel.set(r.model, [...(byModel.get(r.model) ?? []), i]));
  const names = runs.map((r) => r.model);
  for (const idx of byModel.values()) {
    if (idx.length < 2) continue;
    const tails = distinctTails(idx.map((i) => runs[i]!.dir));
    idx.forEach((i, k) => (names[i] = `${runs[i]!.model} · ${tails[k]}`));
  }
  return names;
}

/**
 * The identity of a run's results file: device and inode, so links and other spellings of a path
 * match. A path that is not a run's is itself: reading it says why, where it is read.
 */
function identity(path: string): string {
  let resultsPath: string;
  try {
    ({ resultsPath } = locateRun(path));
  } catch {
    return path;
  }
  try {
    const st = statSync(realpathSync(resultsPath));
    return `${st.dev}:${st.ino}`;
  } catch {
    return resultsPath;
  }
}

/**
 * Refuses a list of run folders that names one run twice (the same folder, another path to
 * it, or its results file), in one line naming both spellings.
 */
export function refuseRepeatedRuns(paths: string[], command: string): void {
  const seen = new Map<string, string>();
  for (const p of paths) {
    const id = identity(p);
    const first = seen.get(id);
    if (first !== undefined) {
      const same = first === p ? `${p} is given twice` : `${first} and ${p} are the same run`;
      throw new ConfigError(
        `${command}: ${same}: give different run folders (a run compared with itself shows nothing)`,
      );
    }
    seen.set(id, p);
  }
}
