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
