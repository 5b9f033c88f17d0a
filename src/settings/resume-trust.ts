/**
 * A run folder is not trusted with secrets. `--resume DIR` would otherwise take the endpoint
 * and the name of the key variable from DIR/run.json, so a folder someone edited, or one that
 * came from elsewhere, could send any environment variable (a token, `HOME`) to any host.
 *
 * The rule: before any request of a resume, the host and the key variable must each come from
 * something the user controls now.
 * - The host: given now (`--base-url`, `--provider`, or the config file), or the host of a
 *   provider in the user's registry (the shipped one, `--providers`, `$BAS_PROVIDERS`), of
 *   `$OPENAI_BASE_URL`, or OpenAI's.
 * - The key variable: given now (`--api-key-var`, `--provider`, or the config file), or the
 *   variable the registry pairs with that host, or `OPENAI_API_KEY` for OpenAI's host, the
 *   host of `$OPENAI_BASE_URL`, or a host given now by `--base-url` (what a fresh run with that
 *   flag would send).
 * Anything else is refused, naming the flag to give again. docs/run-folder.md says the same.
 */
import type { Provider } from './providers.js';
import { shellWord } from '../display/format.js';

/** OpenAI's API, the endpoint of a run that names none. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** The key variable of a run that names none. */
export const DEFAULT_KEY_VAR = 'OPENAI_API_KEY';

/** Where a request goes: scheme, host and port. Paths do not matter to who receives the key. */
function origin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** What a resume is about to use, and where each part came from. */
export interface ResumeEndpoint {
  baseURL: string;
  apiKeyVar: string;
  /** The base URL was given now (a flag or the config file, directly or through a provider named now). */
  urlGivenNow: boolean;
  /** Likewise for the key variable. */
  keyVarGivenNow: boolean;
}

/**
 * Why a resume whose host or key variable came from the saved run.json alone, named by nothing
 * the user controls now, must be refused (the message), or null when it may go on. `savedFile`
 * names run.json in the message. The caller refuses before its first request, and only when
 * there is a request to make: a finished run's resume sends nothing.
 */
export function unconfirmedEndpoint(
  e: ResumeEndpoint,
  registry: ReadonlyMap<string, Provider>,
  env: NodeJS.ProcessEnv,
  savedFile: string,
): string | null {
  const host = origin(e.baseURL);
  if (!e.urlGivenNow && !hostNamed(host, registry, env))
    return `--resume: ${savedFile} names the endpoint ${JSON.stringify(e.baseURL)}, which no flag, config file or provider registry of yours names; a run folder from elsewhere must not choose where your key goes: give --base-url ${e.baseURL} again to use it`;
  if (!e.keyVarGivenNow && !keyVarPaired(e.apiKeyVar, host, e.urlGivenNow, registry, env))
    return `--resume: ${savedFile} says to send the key from ${e.apiKeyVar} to ${host ?? e.baseURL}, which no flag, config file or provider registry of yours pairs with it; a run folder from elsewhere must not choose which variable is sent: give --api-key-var ${e.apiKeyVar} again to use it`;
  return null;
}

/** The host is OpenAI's, `$OPENAI_BASE_URL`'s, or a provider's of the registry. */
function hostNamed(host: string | null, registry: ReadonlyMap<string, Provider>, env: NodeJS.ProcessEnv): boolean {
  const envHost = env.OPENAI_BASE_URL ? origin(env.OPENAI_BASE_URL) : null;
  return (
    host !== null &&
    (host === origin(OPENAI_DEFAULT_BASE_URL) ||
      host === envHost ||
      [...registry.values()].some((p) => origin(p.baseURL) === host))
  );
}

/** The registry pairs the variable with the host, or it is the default variable of a default host. */
function keyVarPaired(
  apiKeyVar: string,
  host: string | null,
  urlGivenNow: boolean,
  registry: ReadonlyMap<string, Provider>,
  env: NodeJS.ProcessEnv,
): boolean {
  const envHost = env.OPENAI_BASE_URL ? origin(env.OPENAI_BASE_URL) : null;
  const defaultHosts = [origin(OPENAI_DEFAULT_BASE_URL), envHost, ...(urlGivenNow ? [host] : [])];
  return (
    [...registry.values()].some((p) => p.apiKeyVar === apiKeyVar && origin(p.baseURL) === host) ||
    (apiKeyVar === DEFAULT_KEY_VAR && defaultHosts.includes(host))
  );
}

/**
 * The endpoint flags a resume given nothing else must be given again for `unconfirmedEndpoint`
 * to let it go on (`--base-url URL`, `--api-key-var NAME`, both or none), as words of a
 * command: what the hint after a stop prints. The key variable goes by name, never its value.
 */
export function flagsToConfirm(
  e: { baseURL: string; apiKeyVar: string },
  registry: ReadonlyMap<string, Provider>,
  env: NodeJS.ProcessEnv,
): string[] {
  const host = origin(e.baseURL);
  const url = hostNamed(host, registry, env) ? [] : ['--base-url', e.baseURL];
  // Giving the URL again makes OPENAI_API_KEY, the default variable, fit to send to it.
  const key = keyVarPaired(e.apiKeyVar, host, url.length > 0, registry, env) ? [] : ['--api-key-var', e.apiKeyVar];
  return [...url, ...key];
}

/** The endpoint flags a resumed sweep may be given again to confirm where its key goes. */
export interface EndpointFlags {
  baseUrl?: string;
  apiKeyVar?: string;
  provider?: string;
  providers?: string;
}

/**
 * The same rule for a sweep's plan (sweep.json keeps the eval flags of points not yet run, and
 * is a file like run.json): the host and key variable it names, itself or through the config
 * file it names, must be confirmed by `confirm` or named by the user's registry. Returns the
 * refusal, or null.
 */
export function unconfirmedPlanEndpoint(
  plan: EndpointFlags,
  config: { base_url?: unknown; api_key_var?: unknown } | null,
  confirm: EndpointFlags,
  registry: ReadonlyMap<string, Provider>,
  env: NodeJS.ProcessEnv,
  planFile: string,
): string | null {
  if (plan.providers !== undefined && confirm.providers !== plan.providers)
    return `--resume: ${planFile} names the provider registry ${JSON.stringify(plan.providers)}, which could name any host: give --providers ${shellWord(plan.providers)} again to use it`;
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const url = plan.baseUrl ?? text(config?.base_url);
  const keyVar = plan.apiKeyVar ?? text(config?.api_key_var);
  const chosen = confirm.provider ?? plan.provider;
  const provider = chosen !== undefined ? registry.get(chosen) : undefined;
  const baseURL =
    confirm.baseUrl ??
    (confirm.provider !== undefined ? provider?.baseURL : undefined) ??
    url ??
    provider?.baseURL ??
    env.OPENAI_BASE_URL ??
    OPENAI_DEFAULT_BASE_URL;
  const apiKeyVar =
    confirm.apiKeyVar ??
    (confirm.provider !== undefined ? provider?.apiKeyVar : undefined) ??
    keyVar ??
    provider?.apiKeyVar ??
    DEFAULT_KEY_VAR;
  const now = (given: string | undefined): boolean => given !== undefined || confirm.provider !== undefined;
  return unconfirmedEndpoint(
    {
      baseURL,
      apiKeyVar,
      urlGivenNow: now(confirm.baseUrl) || url === undefined,
      keyVarGivenNow: now(confirm.apiKeyVar) || keyVar === undefined,
    },
    registry,
    env,
    planFile,
  );
}
