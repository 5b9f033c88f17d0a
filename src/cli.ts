/**
 * The commander program. Each command lazy-imports its handler so that `bas --help` loads
 * nothing but commander; this is the only module that calls `process.exit`.
 */
import { createRequire } from 'node:module';
import type * as Commander from 'commander';

const require = createRequire(import.meta.url);
// Loaded as CommonJS on purpose: importing commander through the ESM loader costs about
// 10 ms more, a quarter of a bare `node` start, and `bas --help` should feel instant.
const { Command, CommanderError, Option } = require('commander') as typeof Commander;
type Command = Commander.Command;
const { version } = require('../package.json') as { version: string };

/** Options shared by every command that builds tasks from a configuration. */
function taskOptions(cmd: Command): Command {
  return cmd
    .option('-n, --num <N>', 'number of tasks (indices 0..N-1)')
    .option('--num-transactions <K>', 'rows per ledger, 4..10000 (default 24)')
    .option('--fault-rate <R>', 'chance that a row carries a fault, 0..1 (default 0.25)')
    .option('--seed <S>', 'generator seed, a non-negative integer (default 20260826)');
}

function buildProgram(): Command {
  const program = new Command('bas')
    .description('Reconcile synthetic Australian GST ledgers into a corrected BAS: generate, validate, score and evaluate')
    .version(version, '-V, --version')
    .exitOverride()
    // One line, in the house form, for every usage error commander finds.
    .configureOutput({ outputError: (text, write) => write(`bas: ${text.trim().replace(/^error: /, '')} (see bas --help)\n`) });

  taskOptions(program.command('gen').description('write tasks: ledgers, answer keys and prompts'))
    .addOption(new Option('--format <F>', 'jsonl, prompt, table, csv or batch (default: jsonl when piped, table on a terminal)'))
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

  // --- eval and serve (src/commands/eval.ts, src/commands/serve.ts) ---
  taskOptions(program.command('eval').description('run a model over the benchmark and summarise the scores'))
    .argument('[@FILE...]', 'a TOML run configuration, as @FILE (same as --config FILE)')
    .option('-m, --model <MODEL>', 'model id sent to the endpoint, or builtin:oracle|raw-sums|blanket|silent')
    .option('-r, --rollouts <K>', 'samples per task, 1..1000 (default 1)')
    .option('-c, --concurrency <C>', 'requests in flight at most, 1..4096 (default 8)')
    .option('--temperature <T>', 'sampling temperature, 0..2 (default: the endpoint\'s)')
    .option('--max-tokens <M>', 'completion token limit (sent as max_tokens; max_completion_tokens to api.openai.com)')
    .option('--reasoning-effort <E>', 'none, minimal, low, medium, high or xhigh')
    .option('--sampling <JSON>', 'extra request fields as a JSON object, e.g. \'{"top_p": 0.9}\'')
    .option('--base-url <URL>', 'OpenAI-compatible endpoint (default: $OPENAI_BASE_URL, else OpenAI)')
    .option('--api-key-var <VAR>', 'environment variable holding the API key (default OPENAI_API_KEY)')
    .option('--timeout <SECONDS>', 'bound on one episode, retries included (default 600)')
    .option('--request-timeout <SECONDS>', 'bound on one request (default 300)')
    .option('--max-retries <K>', 'retries of 5xx, connection failures and timeouts, 0..100; 429s wait until --timeout (default 5)')
    .option('--max-error-rate <R>', 'exit 3 when more than this share of rollouts errored, 0..1 (default 0.1)') // pace:
    .option('--no-adapt', 'keep -c requests in flight even when rate limited (default: adapt)') // pace:
    .option('--output <DIR>', 'run folder (default runs/<UTC time>-<model>)')
    .option('--resume <DIR>', 'continue a run: only missing or errored rollouts, with its saved configuration')
    .option('--config <FILE>', 'TOML run configuration; flags override it')
    .option('--shard <I/N>', 'run only the I-th of N disjoint slices of the tasks (join the shards with bas merge)')
    .option('--price-in <USD>', 'price of prompt tokens per million, kept in run.json for bas report')
    .option('--price-out <USD>', 'price of completion tokens per million, kept in run.json for bas report')
    .option('--json', 'print the summary as JSON instead of tables')
    .option('--no-progress', 'no progress display')
    .action(async (words, opts) => (await import('./commands/eval.js')).evalCommand(words, opts));

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
    .option('--rate-limit <RPS>', 'admit at most RPS requests a second (a token bucket); the rest get 429 with Retry-After (default: no limit)')
    .option('--seed <S>', 'seed of the fault draws (default 1)')
    .option('--api-key <KEY>', 'require this bearer key (default: accept any)')
    .option('--models <IDS>', 'comma-separated model ids served; others get 404 model_not_found (default: any)')
    .action(async (opts) => (await import('./commands/serve.js')).serve(opts));
  // --- end eval and serve ---

  return program;
}

/** Runs the program on `argv` and exits with the right code; never prints a stack trace. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  // A reader that stops early (`bas gen | head`, `bas report DIR | less` quit) closes the
  // pipe: that ends the command quietly and successfully, not with a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    process.stderr.write(`bas: cannot write to standard output: ${err.message}\n`);
    process.exit(1);
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exit(exitCodeFor(err));
  }
}

function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // Help and version "errors" are successes; usage errors are code 2.
    return err.exitCode === 0 ? 0 : 2;
  }
  const e = err as { exitCode?: unknown; message?: unknown; name?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  process.stderr.write(`bas: ${message}\n`);
  if (typeof e?.exitCode === 'number') return e.exitCode;
  if (process.env.BAS_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  return 1;
}
