/**
 * The commander program. Each command lazy-imports its handler so that `bas --help` loads
 * little but commander: the eval settings declaration (from which the options of eval,
 * check, models and sweep are built) is loaded only when one of those commands is named, and
 * the error printer's helpers only when there is an error. This is the only module that
 * calls `process.exit`.
 */
import { createRequire } from 'node:module';
import type * as Commander from 'commander';
import type { CommandOption, SettingKey } from './settings/setting-table.js';
import { MAX_TASKS } from './task/config.js';

type SettingTable = typeof import('./settings/setting-table.js');
/** The commands whose options come from the settings declaration. */
const SETTINGS_COMMANDS = new Set(['eval', 'check', 'models', 'sweep']);

const require = createRequire(import.meta.url);
// Loaded as CommonJS on purpose: importing commander through the ESM loader costs about
// 10 ms more, a quarter of a bare `node` start, and `bas --help` should feel instant.
const { Command, CommanderError, Option } = require('commander') as typeof Commander;
type Command = Commander.Command;
const { version } = require('../package.json') as { version: string };

/**
 * Adds the declared settings `keys`, then `extra`, as options of `cmd`; nothing when the
 * declaration was not loaded (the command was not named, so its options are not needed).
 */
function withSettings(
  cmd: Command,
  table: SettingTable | null,
  keys: (t: SettingTable) => readonly SettingKey[],
  extra: (t: SettingTable) => readonly CommandOption[],
): Command {
  if (!table) return cmd;
  for (const key of keys(table)) {
    const s = table.SETTINGS[key];
    const dflt = s.defaultText.replace(/`/g, '');
    cmd.addOption(
      new Option(s.flags, s.default === true || dflt === 'required' ? s.help : `${s.help} (default: ${dflt})`),
    );
  }
  for (const o of extra(table)) cmd.addOption(new Option(o.flags, o.help));
  return cmd;
}

/** Options shared by every command that builds tasks from a configuration. */
function taskOptions(cmd: Command): Command {
  return cmd
    .option('-n, --num <N>', `number of tasks (indices 0..N-1), 1..${MAX_TASKS}`)
    .option('--num-transactions <K>', 'rows per ledger, 4..10000 (default 24)')
    .option('--fault-rate <R>', 'chance that a row carries a fault, 0..1 (default 0.25)')
    .option('--seed <S>', 'generator seed, a non-negative integer (default 20260826)');
}

function buildProgram(table: SettingTable | null): Command {
  const program = new Command('bas')
    .description(
      'Reconcile synthetic Australian GST ledgers into a corrected BAS: generate, validate, score and evaluate',
    )
    .version(version, '-V, --version')
    .exitOverride()
    // One line, in the house form, for every usage error commander finds.
    .configureOutput({
      outputError: (text, write) => write(`bas: ${text.trim().replace(/^error: /, '')} (see bas --help)\n`),
    });

  taskOptions(program.command('gen').description('write tasks: ledgers, answer keys and prompts'))
    .addOption(
      new Option(
        '--format <F>',
        'jsonl, prompt, table, csv, batch or dataset (default: jsonl when piped, table on a terminal)',
      ),
    )
    .option('--split <SPLIT>', 'train or test: disjoint task sets of one seed (test = the tasks bas eval runs)')
    .option('-o, --out <FILE>', 'write to FILE instead of standard output')
    .option('-m, --model <MODEL>', 'model named in each request (--format batch)')
    .option('--temperature <T>', 'sampling temperature (--format batch)')
    .option('--max-tokens <M>', 'completion token limit (--format batch)')
    .option('--reasoning-effort <E>', 'reasoning effort (--format batch)')
    .option('--sampling <JSON>', 'extra request fields as a JSON object (--format batch)')
    .option('-r, --rollouts <K>', 'requests per task (--format batch, default 1)')
    .action(async (opts) => (await import('./commands/gen.js')).gen(opts));

  taskOptions(program.command('validate').description('re-derive every answer key without a model and check it'))
    .option('--tasks <FILE>', 'check the keys shipped in a tasks JSONL file instead of generating')
    .option('--json', 'print the result as JSON')
    .action(async (opts) => (await import('./commands/validate.js')).validate(opts));

  program
    .command('score')
    .description('grade replies produced elsewhere against their tasks')
    .requiredOption('--tasks <FILE>', 'tasks JSONL written by bas gen')
    .requiredOption('--replies <FILE>', 'replies JSONL: {"index", "reply"} lines, or a batch output file')
    .option('--out <FILE>', 'write one scored line per reply')
    .option('--output <DIR>', 'write a run folder that bas report and bas compare read')
    .option('-m, --model <MODEL>', 'model name recorded in the run folder')
    .option('--json', 'print the summary as JSON')
    .action(async (opts) => (await import('./commands/score.js')).score(opts));

  program
    .command('merge')
    .description('join the shards of a run (disjoint rollouts of one configuration) into one run folder')
    .argument('<RUN_DIR...>', 'two or more run folders, e.g. written by bas eval --shard I/N')
    .option('--output <DIR>', 'the merged run folder (must not exist, or be empty)')
    .option('--json', 'print the merged summary as JSON')
    .action(async (dirs, opts) => (await import('./commands/merge.js')).merge(dirs, opts));

  // --- report and compare (src/commands/report.ts, src/commands/compare.ts) ---
  program
    .command('report')
    .description('summarise a saved run: scores with intervals, breakdowns, tokens and cost')
    .argument('<RUN_DIR>', 'run folder written by bas eval (or a results.jsonl file)')
    .option('--json', 'print the report as JSON')
    .option('--html <FILE>', 'also write a self-contained HTML report to FILE')
    .option('--price-in <USD>', 'price of prompt tokens, US dollars per million (default: run.json prices)')
    .option('--price-out <USD>', 'price of completion tokens, US dollars per million (default: run.json prices)')
    .option(
      '--rollout <I:R>',
      'show rollout R of task I (or I alone: rollout 0; a comma list; repeatable); with --html, embed it in the page',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .action(async (dir, opts) => (await import('./commands/report.js')).report(dir, opts));

  program
    .command('compare')
    .description('compare runs side by side, with paired differences where they share tasks')
    .argument('<RUN_DIR...>', 'two or more run folders; the first is the baseline')
    .option('--json', 'print the comparison as JSON')
    .option('--html <FILE>', 'also write a self-contained HTML comparison to FILE')
    .option('--seed <S>', 'seed of the paired bootstrap (default 1)')
    .option('--resamples <B>', 'bootstrap resamples, 100..1000000 (default 10000)')
    .action(async (dirs, opts) => (await import('./commands/compare.js')).compare(dirs, opts));
  // --- end report and compare ---

  // --- leaderboard (src/commands/leaderboard.ts) ---
  program
    .command('leaderboard')
    .description(
      'rank runs best first, grouped by task configuration, with intervals and paired verdicts against the best',
    )
    .argument('<DIR...>', 'run folders, or folders of run folders (such as runs/ or a bas sweep folder)')
    .option(
      '--by <MEASURE>',
      'rank by reward_errors_as_zero, reward, bas_correct or fault_audit (default reward_errors_as_zero)',
    )
    .option('--include-incomplete', 'also rank runs that did not finish within their error budget (marked *)')
    .option('--json', 'print the leaderboard as JSON')
    .option('--markdown', 'print Markdown tables, for a README or a paper')
    .option('--csv', 'print one CSV row per run, every number at full precision')
    .option('--latex', 'print LaTeX tables (booktabs), for a paper')
    .option('--html <FILE>', 'also write a self-contained HTML leaderboard to FILE')
    .option('--seed <S>', 'seed of the paired bootstrap (default 1)')
    .option('--resamples <B>', 'bootstrap resamples, 100..1000000 (default 10000)')
    .action(async (dirs, opts) => (await import('./commands/leaderboard.js')).leaderboard(dirs, opts));
  // --- end leaderboard ---

  // --- eval and serve (src/commands/eval.ts, src/commands/serve.ts) ---
  // Options derived from the one declaration of the eval settings (src/settings/setting-table.ts).
  withSettings(
    program.command('eval').description('run a model over the benchmark and summarise the scores'),
    table,
    (t) => t.SETTING_KEYS,
    (t) => t.EVAL_COMMAND_OPTIONS,
  )
    .argument('[@FILE...]', 'a TOML run configuration, as @FILE (same as --config FILE)')
    .action(async (words, opts) => (await import('./commands/eval.js')).evalCommand(words, opts));

  withSettings(
    program
      .command('check')
      .description(
        "send one small request with eval's settings: reachable, key, model, parameters, latency, rate limits",
      ),
    table,
    (t) => t.SETTING_KEYS.filter((k) => k !== 'check'),
    (t) => t.EVAL_COMMAND_OPTIONS.filter((o) => !o.flags.startsWith('--resume')),
  )
    .argument('[@FILE...]', 'a TOML run configuration, as @FILE (same as --config FILE)')
    .action(async (words, opts) => (await import('./commands/check.js')).checkCommand(words, opts));

  withSettings(
    program.command('models').description("list the endpoint's models (GET /v1/models)"),
    table,
    () => ['provider', 'providers', 'baseUrl', 'apiKeyVar'],
    () => [],
  )
    .option('--json', 'print the models as JSON')
    .action(async (opts) => (await import('./commands/models.js')).modelsCommand(opts));

  program
    .command('serve')
    .description('a local OpenAI-compatible endpoint answering with a built-in policy, with injectable faults')
    .option('--port <P>', 'port, 0..65535; 0 picks a free one (default 8089)')
    .option('--host <HOST>', 'interface to listen on (default 127.0.0.1)')
    .option('--policy <NAME>', 'oracle, raw-sums, blanket or silent (default oracle)')
    .option('--latency <MS>', 'delay before each answer, in milliseconds (default 0)')
    .option('--error-rate <P>', 'share of requests answered with HTTP 500 (default 0)')
    .option('--rate-limit-rate <P>', 'share answered with HTTP 429 and Retry-After (default 0)')
    .option('--retry-after <SECONDS>', 'the Retry-After sent with a 429 or 500 (default 1)')
    .option('--hang-rate <P>', 'share of requests never answered (default 0)')
    .option('--malformed-rate <P>', 'share answered 200 with a malformed body (default 0)')
    .option(
      '--rate-limit <RPS>',
      'admit at most RPS requests a second (a token bucket); the rest get 429 with Retry-After (default: no limit)',
    )
    .option(
      '--whole-second-retry-after',
      'with --rate-limit: send only Retry-After in whole seconds, no retry-after-ms',
    )
    .option('--cut-rate <P>', 'share of replies cut mid-way, the connection closed (default 0)')
    .option('--stall-rate <P>', 'share of replies that stop mid-way, the connection left open (default 0)')
    .option('--max-request-mb <MB>', 'largest request body accepted; larger ones get 413 (default 8)')
    .option('--seed <S>', 'seed of the fault draws (default 1)')
    .option('--api-key <KEY>', 'require this bearer key (default: accept any)')
    .option('--models <IDS>', 'comma-separated model ids served; others get 404 model_not_found (default: any)')
    .option(
      '--reasoning-tokens <N>',
      'act as a reasoning model that reasons N tokens before answering; a max_tokens at or below N gets empty content cut by the limit (default 0)',
    )
    .action(async (opts) => (await import('./commands/serve.js')).serve(opts));
  // --- end eval and serve ---

  // --- reward-server (src/commands/reward-server.ts) ---
  program
    .command('reward-server')
    .description("serve rewards to RL trainers: OpenRLHF's POST /get_reward, POST /score and GET /health")
    .option('--port <P>', 'port, 0..65535; 0 picks a free one (default 8090)')
    .option('--host <HOST>', 'interface to listen on (default 127.0.0.1)')
    .option(
      '--token-var <NAME>',
      'require "Authorization: Bearer <token>", the token read from environment variable NAME',
    )
    .option('--max-batch <N>', 'most items in one request (default 4096)')
    .option('--max-body-mb <MB>', 'largest request body, in MiB (default 64)')
    .option('--cache-size <N>', 'answer keys kept in memory, least recently used out first (default 20000)')
    .option('--workers <N>', 'grading threads, 0..64; 0 grades on the main thread (default: one per core)')
    .action(async (opts) => (await import('./commands/reward-server.js')).rewardServer(opts));
  // --- end reward-server ---

  // --- sweep (src/commands/sweep.ts): eval's options, the knob's as lists ---
  const evalCmd = program.commands.find((c) => c.name() === 'eval')!;
  const sweepCmd = program
    .command('sweep')
    .description(
      'the difficulty curve: one eval per ledger length (and fault rate) into one sweep folder, then reward against rows',
    )
    .argument('[@FILE...]', 'a TOML run configuration, as @FILE (same as --config FILE)')
    .option('--num-transactions <LIST>', 'rows per ledger, one point each, e.g. 12,24,60,120,240')
    .option('--fault-rate <LIST>', "fault rates, one point each with every row count (default: eval's)")
    .option('--output <DIR>', 'sweep folder (default runs/<UTC time>-sweep-<model>)')
    .option('--resume <DIR>', 'continue a sweep: every point, with its saved settings')
    .option('--html <FILE>', 'also write a self-contained HTML page with the curve to FILE')
    .option('--json', 'print the sweep as JSON');
  const own = new Set(sweepCmd.options.map((o) => o.long));
  for (const o of evalCmd.options) if (!own.has(o.long) && o.long !== '--shard') sweepCmd.addOption(o);
  sweepCmd.action(async (words, opts) => (await import('./commands/sweep.js')).sweep(words, opts));
  // --- end sweep ---

  return program;
}

/** Runs the program on `argv` and exits with the right code; never prints a stack trace. */
export async function main(argv: string[]): Promise<void> {
  const named = argv.slice(2).some((a) => SETTINGS_COMMANDS.has(a));
  const program = buildProgram(named ? await import('./settings/setting-table.js') : null);
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
        void import('./errors.js').then(({ causeInWords }) => {
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
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exit(await exitCodeFor(err));
  }
}

async function exitCodeFor(err: unknown): Promise<number> {
  if (err instanceof CommanderError) {
    // Help and version "errors" are successes; usage errors are code 2.
    return err.exitCode === 0 ? 0 : 2;
  }
  const [{ fileErrorMessage, systemErrorCode }, { redact }, { terminalText }] = await Promise.all([
    import('./errors.js'),
    import('./io/secrets.js'),
    import('./io/terminal-text.js'),
  ]);
  const e = err as { exitCode?: unknown; message?: unknown; name?: unknown; path?: unknown; syscall?: unknown };
  let message = typeof e?.message === 'string' ? e.message : String(err);
  // A system error that no command put into words still gets one line with path and cause.
  if (typeof e?.path === 'string' && systemErrorCode(err) !== null)
    message = fileErrorMessage(typeof e.syscall === 'string' ? e.syscall : 'use', e.path, err);
  // Messages may quote an endpoint or a file: no key, no terminal controls.
  process.stderr.write(`bas: ${terminalText(redact(message))}\n`);
  if (typeof e?.exitCode === 'number') return e.exitCode;
  if (process.env.BAS_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  return 1;
}
