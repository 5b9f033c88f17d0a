/**
 * Every command's flags, declared once: each kind of command declares its set in a file of its
 * own (task-file-flags.ts, run-reading-flags.ts, endpoint-flags.ts, server-flags.ts), from the
 * kinds of flag (flag-kinds.ts), the shared groups (flag-groups.ts: task, sampling, bootstrap,
 * price, output) and the eval settings (setting-table.ts); `COMMAND_FLAGS` gathers them.
 * `src/cli.ts` builds each command's options from here, the commands parse what commander
 * hands over with `readFlags`, and docs/flags.md is rendered from it (setting-docs.ts,
 * `npm run docs:flags`).
 *
 * The key of each entry is commander's attribute name for the flag; a test checks it.
 */
import type { FlagSet } from './flag.js';
export { collectOnce, helpLine, takesValue, unusedNote } from './flag.js';
import type { CommandName } from './command-names.js';
import { ENDPOINT_FLAGS } from './endpoint-flags.js';
import { RUN_READING_FLAGS } from './run-reading-flags.js';
import { SERVER_FLAGS } from './server-flags.js';
import { TASK_FILE_FLAGS } from './task-file-flags.js';

/** Every command's flags, in the order of its `--help`. */
export const COMMAND_FLAGS = {
  ...TASK_FILE_FLAGS,
  ...RUN_READING_FLAGS,
  ...ENDPOINT_FLAGS,
  ...SERVER_FLAGS,
} satisfies Record<CommandName, FlagSet>;
