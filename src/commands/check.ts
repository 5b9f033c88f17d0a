/**
 * `bas check`: the run's first task, sent with exactly the settings `bas eval` would use (same
 * flags, same config file; as a stream under `--stream`, with its idle bound and time to first
 * token), its reply graded as a rollout's, reported in a few lines. `bas eval --check` runs it
 * first.
 *
 * Exit: 0 when the reply could score; 1 when the endpoint refused the request or its reply
 * says the run cannot succeed (empty, cut by the token limit, no answer the scorer can read);
 * 2 for bad input.
 */
import { FatalRunError } from '../errors/index.js';
import { urlWithoutCredentials } from '../io/secrets.js';
import { apiKeyFor } from '../endpoint/api-key.js';
import { configPathFrom, loadConfigFile } from '../settings/config.js';
import { probe, type CheckTask, type ProbeReport } from '../endpoint/endpoint-check.js';
import { renderProbe } from '../endpoint/probe-text.js';
import { generateTask } from '../task/generate.js';
import type { EvalFlags } from '../settings/settings.js';
import { resolvePlan, type EndpointTarget, type EvalPlan } from '../settings/plan.js';
import * as std from '../io/std.js';

/** Why a probe failed, in a few words. */
function reason(r: ProbeReport, s: EndpointTarget): string {
  if (!r.reachable) return `cannot reach ${urlWithoutCredentials(s.baseURL)}: ${r.message ?? 'no answer'}`;
  if (r.keyAccepted === false) return `the endpoint refused the key in ${s.apiKeyVar} (HTTP ${r.status})`;
  if (r.modelKnown === false)
    return `the endpoint does not know model ${JSON.stringify(s.model)} (bas models lists the ones it has)`;
  const said = r.message ?? 'no message';
  if (r.paramsAccepted === false)
    return `the endpoint refused ${r.refusedParam ? `the parameter ${r.refusedParam}` : 'the request'}${r.message ? `: ${r.message}` : ''}`;
  if (r.advice) return r.advice;
  // A redirect's message names its status; a failure without one has no status to name.
  if (r.status === null || (r.status >= 300 && r.status < 400)) return said;
  return `HTTP ${r.status}: ${said}`;
}

/** Where the key came from, for the report's first line: the variable, or the placeholder sent. */
function keySource(s: EndpointTarget, env: NodeJS.ProcessEnv): string {
  return env[s.apiKeyVar] ? `key from ${s.apiKeyVar}` : `${s.apiKeyVar} not set: a placeholder key was sent`;
}

/** The first task the run would send: task 0, or the first of its shard. */
function firstTask(tasks: EvalPlan['tasks']): CheckTask {
  const index = tasks.shard ? tasks.shard.index - 1 : 0;
  const t = generateTask(tasks.config, index);
  return { index, prompt: t.prompt, key: t.key };
}

/**
 * Checks the endpoint a plan names, writing the report to `out`. Throws a FatalRunError
 * naming the cause when it fails; a built-in model has nothing to check.
 */
export async function runCheck(
  plan: EvalPlan,
  env: NodeJS.ProcessEnv,
  out: NodeJS.WritableStream,
  json = false,
): Promise<ProbeReport | null> {
  const s = plan.target;
  if (s.kind === 'builtin') {
    out.write(
      json
        ? `${JSON.stringify({ ok: true, builtin: true }, null, 2)}\n`
        : `bas check: ${plan.model} is built in: no endpoint, nothing to check\n`,
    );
    return null;
  }
  const apiKey = apiKeyFor(s, env);
  const r = await probe(
    {
      baseURL: s.baseURL,
      apiKey,
      requestTimeoutMs: s.requestTimeoutMs,
      maxResponseBytes: s.maxResponseBytes,
    },
    s.model,
    s.sampling,
    firstTask(plan.tasks),
    // A streamed run is checked as it will run: the same request, read the same way.
    s.stream,
  );
  const via = s.provider ? `provider ${s.provider}, ` : '';
  if (json)
    out.write(
      `${JSON.stringify({ model: s.model, base_url: urlWithoutCredentials(s.baseURL), provider: s.provider, ...r }, null, 2)}\n`,
    );
  else
    out.write(
      `${renderProbe(r, `bas check: ${s.model} at ${urlWithoutCredentials(s.baseURL)} (${via}${keySource(s, env)})`)}\n`,
    );
  if (!r.ok) throw new FatalRunError(`check failed: ${reason(r, s)}`);
  return r;
}

/** Runs `bas check` with commander's options and `@FILE` words. */
export async function checkCommand(words: string[], flags: EvalFlags): Promise<void> {
  const configPath = configPathFrom(words, flags.config, 'bas check');
  const file = configPath ? loadConfigFile(configPath) : null;
  const plan = resolvePlan(flags, file, configPath ?? '', std.env());
  await runCheck(plan, std.env(), std.stdout(), flags.json === true);
}
