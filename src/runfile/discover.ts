/**
 * The one rule by which bas finds run folders and sweep folders under a folder (`bas view`,
 * `bas leaderboard`, the API's leaderboard), written down in docs/run-folder.md:
 *
 * - a folder holding an entry named results.jsonl or run.json (of any kind: a link or a FIFO
 *   there is found, and refused when it is read, so the user is told rather than left to
 *   wonder) is a run folder, and is not looked into further;
 * - a folder holding sweep.json is a sweep folder, and its points are the run folders below it;
 * - the walk goes at most FIND_DEPTH folders down and visits at most MAX_FOLDERS folders,
 *   saying when it stopped short; it skips hidden folders and node_modules;
 * - a link to a folder is never followed: the walk stays inside the folder it was given
 *   (a run folder named on the command line may itself be a link: the user chose it);
 * - a folder whose name is not UTF-8 cannot be reached by a path made of text: it is named
 *   (with U+FFFD in place of its bytes) rather than left out in silence.
 *
 * Folders are visited in name order, so every reader lists the same runs in the same order.
 */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { terminalText } from '../io/terminal-text.js';
import { RESULTS_FILE, RUN_FILE, SWEEP_FILE } from './files.js';

/** How deep under the folder runs are looked for (messages say so), and how many folders the walk visits at most. */
export const FIND_DEPTH = 6;
const MAX_FOLDERS = 20_000;

/** A run folder found: its id (its path under the root, safe to show), where it is, and the sweep holding it. */
interface FoundRun {
  id: string;
  dir: string;
  /** The id of the sweep folder it lies under, if any. */
  sweep: string | null;
}

export interface FoundFolders {
  runs: FoundRun[];
  sweeps: Array<{ id: string; dir: string }>;
  /** The walk stopped short (too deep, or too many folders): some runs may be missing. */
  truncated: boolean;
  /** Folders the walk could not enter: their names are not UTF-8 (shown with U+FFFD). */
  unnamed: string[];
}

/**
 * The id of a folder: its path under the root, with `/` between parts ("." for the root
 * itself), safe to show as it is: a hidden or bidi character in a folder's name (a U+202E would
 * make the rest of a line read backwards) is its visible escape, as in every table. A reader
 * keeps the folder beside its id, and never finds the folder again from the id.
 */
function folderId(root: string, dir: string): string {
  const rel = relative(root, dir);
  return rel === '' ? '.' : terminalText(rel.split(sep).join('/'));
}

/** A folder's entries as the walk needs them, in name order; a folder whose name is not UTF-8 goes to `unnamed`. */
function entriesOf(dir: string, unnamed: (name: string) => void): { files: Set<string>; folders: string[] } {
  const files = new Set<string>();
  const folders: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })) {
    const raw = e.name as unknown as Buffer;
    const name = raw.toString('utf8');
    const utf8 = Buffer.from(name, 'utf8').equals(raw);
    if (e.isDirectory()) {
      if (!utf8) unnamed(name);
      else if (!name.startsWith('.') && name !== 'node_modules') folders.push(name);
    } else if (utf8) files.add(name); // a file, a link, a FIFO: whatever stands at the name
  }
  folders.sort();
  return { files, folders };
}

/** Every run folder and sweep folder under `root` (itself included), by the one rule above. */
export function findRunFolders(root: string): FoundFolders {
  const out: FoundFolders = { runs: [], sweeps: [], truncated: false, unnamed: [] };
  let visited = 0;
  const walk = (dir: string, depth: number, sweep: string | null): void => {
    if (++visited > MAX_FOLDERS) {
      out.truncated = true;
      return;
    }
    let entries;
    try {
      entries = entriesOf(dir, (name) => out.unnamed.push(folderId(root, join(dir, name))));
    } catch {
      return; // a folder that cannot be read holds nothing the walk can show
    }
    if (entries.files.has(SWEEP_FILE)) {
      sweep = folderId(root, dir);
      out.sweeps.push({ id: sweep, dir });
    }
    if (entries.files.has(RESULTS_FILE) || entries.files.has(RUN_FILE)) {
      out.runs.push({ id: folderId(root, dir), dir, sweep });
      return; // a run folder holds no runs
    }
    if (depth >= FIND_DEPTH) {
      if (entries.folders.length > 0) out.truncated = true;
      return;
    }
    for (const name of entries.folders) walk(join(dir, name), depth + 1, sweep);
  };
  walk(root, 0, null);
  return out;
}
