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
  hits: number;
  misses: number;
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

/** Regenerates answer keys from labels, keeping at most `max` of them (least recently used out first). */
/** What grading a reply needs of its task: the key, and each row's figures (for its consistency). */
export interface TaskGrading {
  key: AnswerKey;
  figures: LedgerFigures;
}

export class TaskKeys {
  private readonly keys = new Map<string, TaskGrading>();
  private hits = 0;
  private misses = 0;

  constructor(private readonly max: number) {}

  /** The key and row figures of the task `label` names; throws a LabelError when there is none to give. */
  keyFor(label: unknown): TaskGrading {
    if (typeof label === 'string') {
      const cached = this.keys.get(label);
      if (cached) {
        this.hits++;
        // Map keeps insertion order: re-inserting makes it the most recent.
        this.keys.delete(label);
        this.keys.set(label, cached);
        return cached;
      }
    }
    const t = checkLabel(label);
    this.misses++;
    const { ledger } = generateLedger(t.config, t.index);
    const graded = { key: deriveKey(ledger), figures: ledgerFigures(ledger) };
    if (this.max > 0) {
      if (this.keys.size >= this.max) this.keys.delete(this.keys.keys().next().value!);
      this.keys.set(label as string, graded);
    }
    return graded;
  }

  stats(): CacheStats {
    return { size: this.keys.size, max: this.max, hits: this.hits, misses: this.misses };
  }
}
