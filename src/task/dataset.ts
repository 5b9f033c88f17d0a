/**
 * Tasks as a training dataset: one object per task with the chat messages, the same prompt as
 * one string, and a label naming the task (see label.ts). No ledger fields and no answer key:
 * a trainer shows the prompt to the policy and hands the label to the reward service, which
 * regenerates the key from it.
 */
import { formatLabel } from './label.js';
import type { ChatMessage, Task } from './types.js';

/** One line of `bas gen --format dataset`. */
export interface DatasetRow {
  /** The chat messages, as `bas eval` sends them. */
  prompt: ChatMessage[];
  /** The same messages as one string, for trainers that take text (see `promptText`). */
  prompt_text: string;
  /** The task's label, e.g. `bas:g3:p2:n24:f0.25:s20260826:i12`. */
  label: string;
}

/** The messages as one string: their contents in order, a blank line between two. */
function promptText(messages: readonly ChatMessage[]): string {
  return messages.map((m) => m.content).join('\n\n');
}

/** The dataset line of a task (its prompt must have been built). */
export function datasetRow(task: Task): DatasetRow {
  if (task.generator === null || task.prompt_version === null)
    throw new Error(`task ${task.index} has no generator or prompt version: only generated tasks have a label`);
  return {
    prompt: task.prompt.map((m) => ({ role: m.role, content: m.content })),
    prompt_text: promptText(task.prompt),
    label: formatLabel({
      generator: task.generator,
      prompt_version: task.prompt_version,
      config: task.config,
      index: task.index,
    }),
  };
}

export const SPLITS = ['train', 'test'] as const;
export type Split = (typeof SPLITS)[number];

const MASK64 = (1n << 64n) - 1n;

/** splitmix64's finaliser: every bit of the input moves about half the bits of the output. */
function mix64(x: bigint): bigint {
  let z = (x + 0x9e3779b97f4a7c15n) & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/**
 * The seed whose tasks make up `split` of `seed`. The test split is `seed` itself, so it is
 * exactly the tasks `bas eval --seed <seed>` runs; the train split is the top 53 bits of
 * splitmix64(seed), a seed nobody would pick by hand, never `seed` itself. Tasks of two
 * seeds are separate draws, so the two splits share no task identity, at any `-n`.
 */
export function splitSeed(seed: number, split: Split): number {
  if (split === 'test') return seed;
  const derived = Number(mix64(BigInt(seed)) >> 11n);
  return derived === seed ? (derived === 0 ? 1 : derived - 1) : derived;
}
