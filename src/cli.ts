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
  const command = (name: string, description: string): Command =>
    withFlags(program.command(name).description(description), decl);

  command('gen', 'write tasks: ledgers, answer keys and prompts').action(async (opts) =>
    (await import('./commands/gen.js')).gen(opts),
  );

  command('validate', 're-derive every answer key without a model and check it').action(async (opts) => {
    ended.code = await (await import('./commands/validate.js')).validate(opts);
  });

  command('score', 'grade replies produced elsewhere against their tasks').action(async (opts) =>
    (await import('./commands/score.js')).score(opts),
  );

  command('merge', 'join the shards of a run (disjoint rollouts of one configuration) into one run folder')
    .argument('<RUN_DIR...>', 'two or more run folders, e.g. written by bas eval --shard I/N')
    .action(async (dirs, opts) => (await import('./commands/merge.js')).merge(dirs, opts));

  // --- report and compare (src/commands/report.ts, src/commands/compare.ts) ---
  command('report', 'summarise a saved run: scores with intervals, breakdowns, tokens and cost')
    .argument('<RUN_DIR>', 'run folder written by bas eval (or a results.jsonl file)')
    .action(async (dir, opts) => (await import('./commands/report.js')).report(dir, opts));

  command('compare', 'compare runs side by side, with paired differences where they share tasks')
    .argument('<RUN_DIR...>', 'two or more run folders; the first is the baseline')
    .action(async (dirs, opts) => (await import('./commands/compare.js')).compare(dirs, opts));

  command('plan', 'the tasks (and cost) a run needs to detect a difference, from a pilot run or two runs sharing tasks')
    .argument('<RUN_DIR...>', 'a pilot run folder, or two run folders that share tasks')
    .action(async (dirs, opts) => (await import('./commands/plan.js')).plan(dirs, opts));
  // --- end report and compare ---

  // --- leaderboard (src/commands/leaderboard.ts) ---
  command(
    'leaderboard',
    'rank runs best first, grouped by task configuration, with intervals and paired verdicts against the best',
  )
    .argument('<DIR...>', 'run folders, or folders of run folders (such as runs/ or a bas sweep folder)')
    .action(async (dirs, opts) => (await import('./commands/leaderboard.js')).leaderboard(dirs, opts));
  // --- end leaderboard ---

  // --- eval and serve (src/commands/eval.ts, src/commands/serve.ts) ---
  command('eval', 'run a model over the benchmark and summarise the scores')
    .argument('[@FILE...]', 'a TOML run configuration, as @FILE (same as --config FILE)')
    .action(async (words, opts) => (await import('./commands/eval.js')).evalCommand(words, opts));

  command(
    'check',
    "send one small request with eval's settings: reachable, key, model, parameters, latency, rate limits",
  )
    .argument('[@FILE...]', 'a TOML run configuration, as @FILE (same as --config FILE)')
    .action(async (words, opts) => (await import('./commands/check.js')).checkCommand(words, opts));

  command('models', "list the endpoint's models (GET /v1/models)").action(async (opts) =>
    (await import('./commands/models.js')).modelsCommand(opts),
  );

  command(
    'serve',
    'a local OpenAI-compatible endpoint answering with a built-in policy, with injectable faults',
  ).action(async (opts) => (await import('./commands/serve.js')).serve(opts));
  // --- end eval and serve ---

  // --- reward-server (src/commands/reward-server.ts) ---
  command(
    'reward-server',
    "serve rewards to RL trainers: OpenRLHF's POST /get_reward, POST /score and GET /health",
  ).action(async (opts) => (await import('./commands/reward-server.js')).rewardServer(opts));
  // --- end reward-server ---

  // --- view (src/commands/view.ts) ---
  command('view', 'a local web app over the runs under DIR: every run, every rollout, comparisons, live progress')
    .argument('[DIR]', 'folder of run folders and sweeps, or one run folder; runs/ when not given')
    .action(async (dir, opts) => (await import('./commands/view.js')).view(dir, opts));
  // --- end view ---

  // --- sweep (src/commands/sweep.ts): eval's options, the knob's as lists ---
  command(
    'sweep',
    'the difficulty curve: one eval per ledger length (and fault rate) into one sweep folder, then reward against rows',
  )
    .argument('[@FILE...]', 'a TOML run configuration, as @FILE (same as --config FILE)')
    .action(async (words, opts) => (await import('./commands/sweep.js')).sweep(words, opts));
  // --- end sweep ---

  return program;
}

/**
 * Runs one command (`args` as a user types them after `bas`) with `io` as its outside world
 * (src/io/std.ts; the process's own when not given) and resolves with its exit code. It
 * never exits the process, and prints no stack trace: a failure is one line on the run's
 * standard error. Tests run the CLI in their own process through this.
 */
export async function runCli(args: string[], io: std.Std = std.processStd()): Promise<number> {
  return std.withStd(io, async () => {
    const named = args.some((a) => COMMANDS.has(a));
    const ended = { code: 0 };
    try {
      await buildProgram(named ? await import('./settings/command-flags.js') : null, ended).parseAsync(args, {
        from: 'user',
      });
      return ended.code;
    } catch (err) {
      return exitCodeFor(err);
    }
  });
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
  const code = await runCli(argv.slice(2));
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
