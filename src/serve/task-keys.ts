/**
 * Answer keys by task label, for the reward server: a label is read strictly, checked against
 * the generator and prompt this bas writes, and its key regenerated from the label alone (no
 * file, no state on disk), with the most recently used keys kept in a bounded cache. A trainer
 * grades several samples of each prompt in a row, so most look-ups after the first are hits.
 */
import { LabelError } from '../errors/index.js';
import { generateLedger, GENERATOR_VERSION } from '../task/generate.js';
import { parseLabel, type TaskLabel } from '../task/label.js';
import { PROMPT_VERSION } from '../task/prompt.js';
import { deriveKey } from '../task/rules.js';
import { ledgerFigures, type LedgerFigures } from '../task/implied.js';
import type { AnswerKey } from '../task/types.js';

/** Counts for /health. */
export interface CacheStats {
  size: number;
  max: number;
  /** What the kept keys take, estimated (keyBytes), and the most they may. */
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
}

/**
 * About what a key takes in memory, a little over rather than under: measured on the heap,
 * some 220 bytes for each faulty row (its id, its list of codes, the object's slot) and a
 * little for the rest, and some 64 bytes a row for the figures the consistency split reads.
 * A default task's is about 3.5 KB; a 10,000-row ledger whose every row is faulty, about 2.8 MB.
 */
function keyBytes({ key, figures }: TaskGrading): number {
  // Each row's figures: a small object of four fields (the id string is the ledger's own).
  let bytes = 1024 + 64 * figures.rows.length;
  for (const id in key.faults) bytes += 200 + 2 * id.length + 16 * key.faults[id]!.length;
  return bytes;
}

/** The task a label names, when this bas can grade it; throws a LabelError otherwise. */
export function checkLabel(label: unknown): TaskLabel {
  const parsed = parseLabel(label);
  if (!parsed.ok) throw new LabelError(parsed.reason, 400);
  const t = parsed.label;
  // A key from another generator would be the key of a different ledger: refuse, never guess.
  if (t.generator !== GENERATOR_VERSION)
    throw new LabelError(
      `the label names generator version ${t.generator}, but this bas generates version ${GENERATOR_VERSION}: grade it with the bas that wrote the dataset, or export the dataset again`,
      422,
    );
  // The prompt states the answer format the grader reads: a dataset of another prompt
  // version asked for answers this grader may read differently.
  if (t.prompt_version !== PROMPT_VERSION)
    throw new LabelError(
      `the label names prompt version ${t.prompt_version}, but this bas writes prompt version ${PROMPT_VERSION}: export the dataset again with this bas`,
      422,
    );
  return t;
}

/** What grading a reply needs of its task: the key, and each row's figures (for its consistency). */
export interface TaskGrading {
  key: AnswerKey;
  figures: LedgerFigures;
}

/**
 * Regenerates answer keys from labels, keeping at most `max` of them and `maxBytes` of them
 * together (least recently used out first). A key larger than `maxBytes` alone is not kept.
 */
export class TaskKeys {
  private readonly keys = new Map<string, { grading: TaskGrading; bytes: number }>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly max: number,
    private readonly maxBytes: number,
  ) {}

  /** The key and row figures of the task `label` names; throws a LabelError when there is none to give. */
  keyFor(label: unknown): TaskGrading {
    if (typeof label === 'string') {
      const cached = this.keys.get(label);
      if (cached) {
        this.hits++;
        // Map keeps insertion order: re-inserting makes it the most recent.
        this.keys.delete(label);
        this.keys.set(label, cached);
        return cached.grading;
      }
    }
    const t = checkLabel(label);
    this.misses++;
    const { ledger } = generateLedger(t.config, t.index);
    const graded = { key: deriveKey(ledger), figures: ledgerFigures(ledger) };
    this.keep(label as string, graded);
    return graded;
  }

  private keep(label: string, grading: TaskGrading): void {
    const bytes = keyBytes(grading);
    if (this.max === 0 || bytes > this.maxBytes) return;
    for (const [old, entry] of this.keys) {
      if (this.keys.size < this.max && this.bytes + bytes <= this.maxBytes) break;
      this.keys.delete(old);
      this.bytes -= entry.bytes;
    }
    this.keys.set(label, { grading, bytes });
    this.bytes += bytes;
  }

  stats(): CacheStats {
    const { max, maxBytes, hits, misses } = this;
    return { size: this.keys.size, max, bytes: this.bytes, maxBytes, hits, misses };
  }
}
