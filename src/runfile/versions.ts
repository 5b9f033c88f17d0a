/** The versions a run records, so a result can be traced to the code that produced it. */
import { createRequire } from 'node:module';
import { VERSION as OPENAI_VERSION } from 'openai/version';

const require = createRequire(import.meta.url);

export const BAS_VERSION: string = (require('../../package.json') as { version: string }).version;
export { OPENAI_VERSION };

/**
 * The task generator a run's tasks came from: run.json records it since generator 2, so an
 * eval run without the field had 1; a scored run's tasks came from a file, not from this
 * generator (null: nothing to check).
 */
export function runGenerator(run: { generator?: unknown; indices?: unknown } | null | undefined): number | null {
  if (!run) return null;
  if (typeof run.generator === 'number') return run.generator;
  return Array.isArray(run.indices) || run.generator === null ? null : 1;
}

/**
 * The prompt version a run's models were shown: run.json records it since generator 3, so
 * an eval run without the field had prompt 1; a scored run's prompts came from a file (null;
 * such a run says so by its null generator even where it predates this field).
 */
export function runPromptVersion(
  run: { prompt_version?: unknown; generator?: unknown; indices?: unknown } | null | undefined,
): number | null {
  if (!run) return null;
  if (typeof run.prompt_version === 'number') return run.prompt_version;
  return Array.isArray(run.indices) || run.prompt_version === null || run.generator === null ? null : 1;
}

type Versioned = { prompt_version?: unknown; generator?: unknown; indices?: unknown } | null | undefined;

/**
 * Whether two runs' tasks may be paired, merged or ranked together: the same generator and
 * the same prompt. An unknown version (a task file that did not say) matches only another
 * unknown one. Returns what differs, for the caller's message, or null when nothing does.
 */
export function versionClash(
  a: Versioned,
  b: Versioned,
): { what: 'task generator' | 'prompt'; a: number | null; b: number | null } | null {
  const [ga, gb] = [runGenerator(a), runGenerator(b)];
  if (ga !== gb) return { what: 'task generator', a: ga, b: gb };
  const [pa, pb] = [runPromptVersion(a), runPromptVersion(b)];
  if (pa !== pb) return { what: 'prompt', a: pa, b: pb };
  return null;
}
