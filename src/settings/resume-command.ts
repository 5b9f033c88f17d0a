/**
 * The command that continues a stopped run, as a stop or an error budget prints it: every flag
 * a resume must be given again, so that it runs as printed. Most settings come back from
 * run.json; what cannot is the trust of a host and a key variable (resume-trust.ts), and the
 * provider registry file, which run.json does not keep.
 */
import { loadProviders } from './providers.js';
import { flagsToConfirm } from './resume-trust.js';
import type { EndpointTarget, EvalPlan } from './plan.js';
import { shellWord } from '../display/format.js';

/**
 * `bas eval --resume DIR` (or `bas sweep --resume DIR` with `sweep`) and the endpoint flags its
 * resume needs to be trusted: the URL when no registry of the user's names its host, the key
 * variable (by name) when nothing pairs it with that host, and `--providers FILE` when the
 * run's provider comes from that file (a sweep's plan that names one is refused without it).
 */
export function resumeCommand(
  dir: string,
  plan: EvalPlan,
  env: NodeJS.ProcessEnv,
  sweep: { providers: string | null } | null = null,
): string {
  const words = ['bas', sweep ? 'sweep' : 'eval', '--resume', dir];
  if (plan.target.kind === 'endpoint') words.push(...endpointFlags(plan.target, plan.settings.providers, env, sweep));
  return words.map(shellWord).join(' ');
}

function endpointFlags(
  e: EndpointTarget,
  providers: string | null,
  env: NodeJS.ProcessEnv,
  sweep: { providers: string | null } | null,
): string[] {
  try {
    const usual = loadProviders(null, env);
    // The user's own registry file is not in run.json: name it again when the run's provider is only there.
    const file = sweep
      ? sweep.providers
      : e.provider !== null && providers !== null && !usual.has(e.provider)
        ? providers
        : null;
    const registry = file !== null ? loadProviders(file, env) : usual;
    const trust = flagsToConfirm({ baseURL: e.baseURL, apiKeyVar: e.apiKeyVar }, registry, env);
    return file !== null ? ['--providers', file, ...trust] : trust;
  } catch {
    // A registry that no longer reads (a file since removed): both flags, which need none.
    return ['--base-url', e.baseURL, '--api-key-var', e.apiKeyVar];
  }
}

/**
 * `bas eval --resume DIR` with the endpoint flags its resume needs, from a run.json as read
 * back (a report's hint after a kill): the URL and key variable it names, given again where no
 * registry of the user's vouches for them. A run of a built-in policy needs none.
 */
export function savedResumeCommand(
  dir: string,
  run: Readonly<{ base_url?: unknown; api_key_var?: unknown }> | null,
  env: NodeJS.ProcessEnv,
): string {
  const words = ['bas', 'eval', '--resume', dir];
  const baseURL = run?.base_url;
  const apiKeyVar = typeof run?.api_key_var === 'string' ? run.api_key_var : 'OPENAI_API_KEY';
  if (typeof baseURL === 'string' && baseURL !== '') {
    try {
      words.push(...flagsToConfirm({ baseURL, apiKeyVar }, loadProviders(null, env), env));
    } catch {
      words.push('--base-url', baseURL, '--api-key-var', apiKeyVar);
    }
  }
  return words.map(shellWord).join(' ');
}
