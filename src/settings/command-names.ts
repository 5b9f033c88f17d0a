/**
 * The names of bas's commands, in the order of `bas --help`. The declaration of their flags
 * (command-flags.ts) is keyed by them; they live apart from it so that `src/cli.ts` can tell
 * whether a command was named without loading every flag (`bas --help` loads only commander).
 */
export const COMMAND_NAMES = [
  'gen',
  'validate',
  'score',
  'merge',
  'report',
  'compare',
  'plan',
  'leaderboard',
  'eval',
  'check',
  'models',
  'serve',
  'reward-server',
  'view',
  'sweep',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];
