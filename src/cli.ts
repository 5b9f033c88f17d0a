/**
 * The commander program. Each command lazy-imports its handler so that `bas --help` loads
 * little but commander. Every command's options come from the one declaration
 * (src/settings/command-flags.ts), which is loaded only when a command is named, and the
 * error printer's helpers only when there is an error. `runCli` runs one command and returns
 * its exit code; `main`, the process wrapper, is the only code that calls `process.exit`.
 */
import { createRequire } from 'node:module';
import type * as Commander from 'commander';
import type { Flag } from './settings/flag.js';
import { COMMAND_NAMES } from './settings/command-names.js';
import * as std from './io/std.js';

type Declaration = typeof import('./settings/command-flags.js');
/** The commands, as the declaration keys them (from a module of their own, so `bas --help` need not load it). */
const COMMANDS = new Set<string>(COMMAND_NAMES);

const require = createRequire(import.meta.url);
// Loaded as CommonJS on purpose: importing commander through the ESM loader costs about
// 10 ms more, a quarter of a bare `node` start, and `bas --help` should feel instant.
const { Command, CommanderError, Option } = require('commander') as typeof Commander;
type Command = Commander.Command;
const { version } = require('../package.json') as { version: string };

/** Commander's usage errors in the house form, pointing at the help of the command at hand. */
function usageErrors(cmd: Command, help: string): Command {
  return cmd.configureOutput({
    outputError: (text, write) => write(`bas: ${text.trim().replace(/^error: /, '')} (see ${help})\n`),
  });
}

/**
 * Adds the declared flags of `cmd` as its options: the help line with its default, the
 * refusal of a repeated single-valued flag, required and hidden flags, and a line naming the
 * flags taken but unused. Nothing when the declaration was not loaded (the command was not
 * named, so its options are not needed).
 */
function withFlags(cmd: Command, decl: Declaration | null): Command {
  usageErrors(cmd, `bas ${cmd.name()} --help`);
  if (!decl) return cmd;
  const flags = decl.COMMAND_FLAGS[cmd.name() as keyof Declaration['COMMAND_FLAGS']];
  for (const f of Object.values(flags) as Flag<unknown>[]) {
    const o = new Option(f.flags, decl.helpLine(f));
    if (decl.takesValue(f)) o.argParser(decl.collectOnce(f));
    if (f.required) o.makeOptionMandatory();
    if (f.hidden || f.unused) o.hideHelp();
    cmd.addOption(o);
  }
  const note = decl.unusedNote(flags);
  if (note !== null) cmd.addHelpText('after', `\n${note}`);
  return cmd;
}

/** A terminal's width for the help text; none (commander's 80) for a pipe or a file. */
function helpWidth(stream: std.OutStream): number {
  // commander's own default returns undefined for a stream that is not a terminal, as here.
  return (stream.isTTY ? stream.columns : undefined) as number;
}

/** What a command's handler is given: its arguments, then its options. */
type Handler = (args: unknown[], opts: Record<string, unknown>) => Promise<number | void>;

/**
 * The commands in the order `bas --help` lists them: name, one line, the positional
 * argument when there is one, and the handler, imported only when the command runs.
 */
const COMMAND_TABLE: ReadonlyArray<{ name: string; about: string; argument?: [string, string]; run: Handler }> = [
  {
    name: 'gen',
    about: 'write tasks: ledgers, answer keys and prompts',
    run: async (_, o) => (await import('./commands/gen.js')).gen(o),
  },
  {
    name: 'validate',
    about: 're-derive every answer key without a model and check it',
    run: async (_, o) => (await import('./commands/validate.js')).validate(o),
  },
  {
    name: 'score',
    about: 'grade replies produced elsewhere against their tasks',
    run: async (_, o) => (await import('./commands/score.js')).score(o),
  },
  {
    name: 'merge',
    about: 'join the shards of a run (disjoint rollouts of one configuration) into one run folder',
    argument: ['<RUN_DIR...>', 'two or more run folders, e.g. written by bas eval --shard I/N'],
    run: async ([dirs], o) => (await import('./commands/merge.js')).merge(dirs as string[], o),
  },
  {
    name: 'report',
    about: 'summarise a saved run: scores with intervals, breakdowns, tokens and cost',
    argument: ['<RUN_DIR>', 'run folder written by bas eval (or a results.jsonl file)'],
    run: async ([dir], o) => (await import('./commands/report.js')).report(dir as string, o),
  },
  {
    name: 'compare',
    about: 'compare runs side by side, with paired differences where they share tasks',
    argument: ['<RUN_DIR...>', 'two or more run folders; the first is the baseline'],
    run: async ([dirs], o) => (await import('./commands/compare.js')).compare(dirs as string[], o),
  },
  {
    name: 'plan',
    about: 'the tasks (and cost) a run needs to detect a difference, from a pilot run or two runs sharing tasks',
    argument: ['<RUN_DIR...>', 'a pilot run folder, or two run folders that share tasks'],
    run: async ([dirs], o) => (await import('./commands/plan.js')).plan(dirs as string[], o),
  },
  {
    name: 'leaderboard',
    about: 'rank runs best first, grouped by task configuration, with intervals and paired verdicts against the best',
    argument: ['<DIR...>', 'run folders, or folders of run folders (such as runs/ or a bas sweep folder)'],
    run: async ([dirs], o) => (await import('./commands/leaderboard.js')).leaderboard(dirs as string[], o),
  },
  {
    name: 'eval',
    about: 'run a model over the benchmark and summarise the scores',
    argument: ['[@FILE...]', 'a TOML run configuration, as @FILE (same as --config FILE)'],
    run: async ([words], o) => (await import('./commands/eval.js')).evalCommand(words as string[], o),
  },
  {
    name: 'check',
    about: "send one small request with eval's settings: reachable, key, model, parameters, latency, rate limits",
    argument: ['[@FILE...]', 'a TOML run configuration, as @FILE (same as --config FILE)'],
    run: async ([words], o) => (await import('./commands/check.js')).checkCommand(words as string[], o),
  },
  {
    name: 'models',
    about: "list the endpoint's models (GET /v1/models)",
    run: async (_, o) => (await import('./commands/models.js')).modelsCommand(o),
  },
  {
    name: 'serve',
    about: 'a local OpenAI-compatible endpoint answering with a built-in policy, with injectable faults',
    run: async (_, o) => (await import('./commands/serve.js')).serve(o),
  },
  {
    name: 'reward-server',
    about:
      "serve rewards to RL trainers: OpenRLHF's POST /get_reward, NeMo Gym's POST /seed_session and POST /verify, POST /score and GET /health",
    run: async (_, o) => (await import('./commands/reward-server.js')).rewardServer(o),
  },
  {
    name: 'view',
    about: 'a local web app over the runs under DIR: every run, every rollout, comparisons, live progress',
    argument: ['[DIR]', 'folder of run folders and sweeps, or one run folder; runs/ when not given'],
    run: async ([dir], o) => (await import('./commands/view.js')).view(dir as string | undefined, o),
  },
  {
    name: 'sweep',
    about:
      'the difficulty curve: one eval per ledger length (and fault rate) into one sweep folder, then reward against rows',
    argument: ['[@FILE...]', 'a TOML run configuration, as @FILE (same as --config FILE)'],
    run: async ([words], o) => (await import('./commands/sweep.js')).sweep(words as string[], o),
  },
];

/** The program; a command that ends with a code of its own (validate) sets `ended.code`. */
function buildProgram(decl: Declaration | null, ended: { code: number }): Command {
  const program = new Command('bas')
    .description(
      'Reconcile synthetic Australian GST ledgers into a corrected BAS: generate, validate, score and evaluate',
    )
    .version(version, '-V, --version')
    .exitOverride()
    // Help, version and usage errors go to the run's streams (src/io/std.ts), not the process's;
    // set before the commands are added, which copy it.
    .configureOutput({
      writeOut: (text) => void std.stdout().write(text),
      writeErr: (text) => void std.stderr().write(text),
      getOutHelpWidth: () => helpWidth(std.stdout()),
      getErrHelpWidth: () => helpWidth(std.stderr()),
    });
  // One line, in the house form, for every usage error commander finds.
  usageErrors(program, 'bas --help');
  for (const c of COMMAND_TABLE) {
    const cmd = withFlags(program.command(c.name).description(c.about), decl);
    if (c.argument) cmd.argument(...c.argument);
    // commander calls an action with the arguments, then the options, then the command.
    cmd.action(async (...given: unknown[]) => {
      const args = given.slice(0, c.argument ? 1 : 0);
      const code = await c.run(args, given[args.length] as Record<string, unknown>);
      if (typeof code === 'number') ended.code = code;
    });
  }
  return program;
}

/**
 * Runs one command (`args` as a user types them after `bas`) with `io` as its outside world
 * (src/io/std.ts; the process's own when not given) and resolves with its exit code. It
 * never exits the process, and prints no stack trace: a failure is one line on the run's
 * standard error. Tests run the CLI in their own process through this. `alone`: the caller is
 * the process itself, running nothing beside it (`main`).
 */
export async function runCli(args: string[], io: std.Std = std.processStd(), alone = false): Promise<number> {
  // Standard output passes the one redaction: no command prints a key bas knows.
  const { redactingStream } = await import('./io/output.js');
  return std.withStd(
    { ...io, stdout: redactingStream(io.stdout) },
    async () => {
      const named = args.some((a) => COMMANDS.has(a));
      const ended = { code: 0 };
      try {
        // Every key bas reads is known from the start: nothing printed or written shows one.
        if (named) (await import('./settings/providers.js')).registerKnownKeys(std.env());
        await buildProgram(named ? await import('./settings/command-flags.js') : null, ended).parseAsync(args, {
          from: 'user',
        });
        return ended.code;
      } catch (err) {
        return exitCodeFor(err);
      }
    },
    alone,
  );
}

/** The process wrapper: runs the command on the process's own streams and exits with its code. */
export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (`bas gen | head`, `bas report DIR | less` quit) closes the
  // pipe. A running eval takes charge (it stops, writes its final run.json and exits 141);
  // any other command ends quietly and successfully, not with a stack trace.
  const onOutputError = (stream: string) => (err: NodeJS.ErrnoException) => {
    void import('./io/output.js').then(({ outputClosed }) => {
      if (err.code === 'EPIPE') {
        if (!outputClosed()) process.exit(0);
        return;
      }
      if (stream === 'standard output') {
        void import('./errors/index.js').then(({ causeInWords }) => {
          process.stderr.write(`bas: cannot write to ${stream}: ${causeInWords(err)}\n`);
          process.exit(1);
        });
        return;
      }
      process.exit(1);
    });
  };
  process.stdout.on('error', onOutputError('standard output'));
  process.stderr.on('error', onOutputError('standard error'));
  // The process's one run: no other beside it to keep apart (src/io/std.ts).
  const code = await runCli(argv.slice(2), std.processStd(), true);
  // A success ends by itself once the output is flushed; a failure exits at once, even with
  // requests or timers still pending.
  if (code !== 0) process.exit(code);
}

async function exitCodeFor(err: unknown): Promise<number> {
  if (err instanceof CommanderError) {
    // Help and version "errors" are successes; usage errors are code 2.
    return err.exitCode === 0 ? 0 : 2;
  }
  const [{ describeError }, { terminalText }] = await Promise.all([
    import('./errors/index.js'),
    import('./io/terminal-text.js'),
  ]);
  const report = describeError(err);
  // Messages may quote an endpoint or a file: no key, no terminal controls (terminalText redacts).
  const stderr = std.stderr();
  stderr.write(`bas: ${terminalText(report.line)}\n`);
  if (report.internal && std.env().BAS_DEBUG && err instanceof Error)
    stderr.write(`${terminalText(err.stack ?? '')}\n`);
  return report.exitCode;
}
