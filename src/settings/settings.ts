/**
 * The settings of one eval run, from flags over a config file over (with --resume) the saved
 * run over defaults, every one as declared in setting-table.ts. Every value is checked here,
 * before any work starts, and a bad one names where it came from (a flag, a config key or
 * the saved run.json), the value and the range.
 */
import { ConfigError } from '../errors/index.js';
import { isPolicyName, POLICY_NAMES } from '../task/policy-names.js';
import { valueAt, type FileConfig } from './config.js';
import { findProvider, loadProviders, originOf, type Provider } from './providers.js';
import { SETTINGS, SETTING_KEYS, type SettingKey, type SettingValues } from './setting-table.js';
import type { Setting } from './setting-entry.js';
import { flagName, isNegatable } from './flag.js';
import { canon } from '../io/canon.js';
import { registerUrlSecrets, urlWithoutCredentials } from '../io/secrets.js';
import { builtinName } from './setting-parse.js';
import { unconfirmedEndpoint, DEFAULT_KEY_VAR, OPENAI_DEFAULT_BASE_URL } from './resume-trust.js';

/** The options of `bas eval` as commander hands them over (strings and switches, unchecked). */
export type EvalFlags = { [K in SettingKey]?: string | boolean } & { resume?: string; config?: string; json?: boolean };

/**
 * The resolved settings of a run: the declaration's values (setting-table.ts, one key per
 * setting), checked, with the model given and the endpoint resolved. Consumers that need
 * another shape derive it there (`taskConfigOf`, `samplingOf`, `maxResponseBytesOf`, `pricesOf`).
 */
export interface EvalSettings extends Omit<SettingValues, 'model' | 'baseUrl' | 'apiKeyVar'> {
  model: string;
  /** The endpoint: given, else the provider's, else `$OPENAI_BASE_URL`, else OpenAI's. */
  baseUrl: string;
  /** The environment variable the key is read from (the key itself is never kept). */
  apiKeyVar: string;
  /** False for a local provider's server: an unset key variable sends a placeholder. */
  keyRequired: boolean;
  /**
   * On a resume whose endpoint or key variable came from run.json alone and is named by nothing
   * the user controls: why it must be refused before any request (see resume-trust.ts).
   */
  unconfirmed: string | null;
}

/** The endpoint part of the resolved settings. */
type Endpoint = Pick<EvalSettings, 'provider' | 'baseUrl' | 'apiKeyVar' | 'keyRequired' | 'unconfirmed'>;

/** What a saved run.json contributes on --resume: the run.json itself, as data (old ones included). */
export type SavedSettings = Readonly<Record<string, unknown>>;

/** Where a value came from: a flag or config key (given now) or the saved run. */
interface Picked<V> {
  value: V;
  given: boolean;
  /** How an error names the source. */
  name: string;
}

function pickOne<K extends SettingKey>(
  key: K,
  flags: EvalFlags,
  file: FileConfig | null,
  fileName: string,
  saved: SavedSettings | null,
  savedFile: string,
): Picked<SettingValues[K]> {
  const spec = SETTINGS[key] as Setting<SettingValues[K]>;
  const flag = flags[key];
  // Commander fills in `true` for a `--no-x` switch that was not given.
  if (flag !== undefined && !(isNegatable(spec) && flag === true))
    return { value: spec.parse(flag, flagName(spec)), given: true, name: flagName(spec) };
  const fromFile = file && spec.toml ? valueAt(file, spec.toml) : undefined;
  const inFile = `"${spec.toml}" in ${fileName}`;
  if (fromFile !== undefined) return { value: spec.parse(fromFile, inFile), given: true, name: inFile };
  const fromSaved = saved && spec.runJson ? valueAt(saved, spec.runJson) : undefined;
  // A null in run.json is a value only where the setting's own default is null (a sampling
  // field left to the endpoint); elsewhere it is an old or built-in run's gap.
  if (fromSaved !== undefined && (fromSaved !== null || spec.default === null)) {
    const name = `${savedFile}: "${spec.runJson}"`;
    const value = fromSaved === null ? null : spec.load ? spec.load(fromSaved, name) : spec.parse(fromSaved, name);
    if (value === undefined) throw new ConfigError(`--resume: ${name} is unreadable`);
    return { value: value as SettingValues[K], given: false, name };
  }
  return { value: spec.default, given: false, name: flagName(spec) };
}

/** Every setting's value, and which ones were given now (by a flag or the config file). */
function pickSettings(
  flags: EvalFlags,
  file: FileConfig | null,
  fileName: string,
  saved: SavedSettings | null,
  savedFile = 'the saved run.json',
): { values: SettingValues; given: Set<SettingKey>; names: Record<SettingKey, string> } {
  const values = {} as Record<SettingKey, unknown>;
  const names = {} as Record<SettingKey, string>;
  const given = new Set<SettingKey>();
  for (const key of SETTING_KEYS) {
    const p = pickOne(key, flags, file, fileName, saved, savedFile);
    values[key] = p.value;
    names[key] = p.name;
    if (p.given) given.add(key);
  }
  return { values: values as SettingValues, given, names };
}

/** The endpoint: explicit URL and key variable, else the provider's, else the environment. */
function endpoint(
  v: SettingValues,
  given: Set<SettingKey>,
  env: NodeJS.ProcessEnv,
  savedFile: string | null = null,
): Endpoint {
  let provider: Provider | null = null;
  // A resume checks what it took from run.json against the registry, so it is loaded then too.
  const registry = v.provider !== null || savedFile !== null ? loadProviders(v.providers, env) : null;
  if (v.provider !== null && registry !== null) {
    // A saved run keeps its URL and key variable: a provider since dropped from the
    // registry (say, one from a --providers file not given again) does not block its resume.
    provider = given.has('provider')
      ? findProvider(registry, v.provider, flagName(SETTINGS.provider))
      : (registry.get(v.provider) ?? null);
  }
  // A provider named now beats a URL saved in the run; a URL given now beats everything.
  const fresh = (key: SettingKey): boolean => given.has(key) || !given.has('provider');
  const envURL = env.OPENAI_BASE_URL ? SETTINGS.baseUrl.parse(env.OPENAI_BASE_URL, 'OPENAI_BASE_URL') : null;
  const baseUrl = (fresh('baseUrl') ? v.baseUrl : null) ?? provider?.baseURL ?? envURL ?? OPENAI_DEFAULT_BASE_URL;
  const keyVarNamed = fresh('apiKeyVar') ? v.apiKeyVar : null;
  const apiKeyVar = keyVarNamed ?? provider?.apiKeyVar ?? DEFAULT_KEY_VAR;
  // A base URL on another host than the provider's is not that provider: its label stays
  // behind, and so does its key unless the key variable is named outright.
  const elsewhere = provider !== null && originOf(baseUrl) !== originOf(provider.baseURL);
  // A local provider whose key variable is unset has no key to send anywhere: its server on
  // another port (llama.cpp on 8081, say) needs nothing more.
  const noKeyToSend = provider !== null && !provider.keyRequired && !env[provider.apiKeyVar];
  if (provider !== null && elsewhere && keyVarNamed === null && !noKeyToSend)
    throw new ConfigError(keyElsewhere(provider, baseUrl));
  // A variable named by the user is meant to hold a key; a local provider's needs none.
  const keyRequired = given.has('apiKeyVar') || !provider || provider.keyRequired;
  let unconfirmed: string | null = null;
  if (savedFile !== null && registry !== null) {
    // What came from run.json alone: neither given now nor named through a provider given now.
    const fromSaved = (key: SettingKey, value: unknown): boolean =>
      !given.has(key) && !given.has('provider') && value !== null;
    unconfirmed = unconfirmedEndpoint(
      {
        baseURL: baseUrl,
        apiKeyVar,
        urlGivenNow: !fromSaved('baseUrl', v.baseUrl),
        keyVarGivenNow: !fromSaved('apiKeyVar', v.apiKeyVar),
      },
      registry,
      env,
      savedFile,
    );
  }
  registerUrlSecrets(baseUrl);
  return { provider: elsewhere ? null : v.provider, baseUrl, apiKeyVar, keyRequired, unconfirmed };
}

/** The refusal to send a provider's key to a base URL on another host. */
function keyElsewhere(p: Provider, baseUrl: string): string {
  return (
    `the base URL ${urlWithoutCredentials(baseUrl)} is not on provider ${p.name}'s host (${originOf(p.baseURL) ?? p.baseURL}), ` +
    `and bas sends ${p.name}'s key (${p.apiKeyVar}) only there: name the key this endpoint takes with --api-key-var NAME ` +
    `(config: api_key_var; --api-key-var ${p.apiKeyVar} sends that key anyway), or name no provider`
  );
}

/** The endpoint of `bas models`: --provider, --base-url, --api-key-var as for eval, no model. */
export function resolveEndpoint(flags: EvalFlags, env: NodeJS.ProcessEnv): Omit<Endpoint, 'unconfirmed'> {
  const { values, given } = pickSettings(flags, null, '', null);
  const { unconfirmed: _none, ...ep } = endpoint(values, given, env);
  return ep;
}

/**
 * Resolves and checks the settings. With `saved` (a resumed run), the saved values are the
 * base, and a value given now that would change what the run measures (the settings
 * declared `measured`) is refused; operational ones may change.
 */
export function resolveSettings(
  flags: EvalFlags,
  file: FileConfig | null,
  fileName: string,
  env: NodeJS.ProcessEnv,
  saved: SavedSettings | null = null,
  savedFile?: string,
  baseline: Baseline | null = null,
): EvalSettings {
  const { values: v, given, names } = pickSettings(flags, file, fileName, saved, savedFile);
  checkAgainst(v, given, names, baseline, saved !== null);
  if (v.model === null) {
    throw new ConfigError(
      '-m/--model is required: a model id such as openai/gpt-5-mini, or builtin:oracle (no key, no network)',
    );
  }
  const policy = builtinName(v.model);
  if (policy !== null && !isPolicyName(policy)) {
    throw new ConfigError(
      `${names.model}: unknown built-in model ${JSON.stringify(v.model)} (choose builtin:${POLICY_NAMES.join(', builtin:')}, builtin:share:P[:K])`,
    );
  }
  if (saved) refuseChanges(v, given, saved);
  // A budget in dollars is counted at the run's prices: without both, nothing could be checked against it.
  if (v.maxCost !== null && (v.priceIn === null || v.priceOut === null))
    throw new ConfigError(
      `${names.maxCost} ${v.maxCost} needs both prices to count dollars: give --price-in and --price-out (US dollars per million tokens), or budget in tokens with --max-total-tokens`,
    );
  const ep: Endpoint =
    policy !== null
      ? {
          provider: v.provider,
          baseUrl: v.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
          apiKeyVar: v.apiKeyVar ?? DEFAULT_KEY_VAR,
          keyRequired: false,
          unconfirmed: null,
        }
      : endpoint(v, given, env, saved ? (savedFile ?? 'the saved run.json') : null);
  // `model` again: the null check above narrowed `v.model`, not `v`, for the type of the result.
  return { ...v, model: v.model, ...ep };
}

/**
 * The folder `--against` names (a flag, the config file, or on a resume the saved run), or null:
 * the caller reads its run.json and hands it to `resolveSettings` as the baseline.
 */
export function againstOf(
  flags: EvalFlags,
  file: FileConfig | null,
  fileName: string,
  saved: SavedSettings | null = null,
): string | null {
  return pickOne('against', flags, file, fileName, saved, 'the saved run.json').value;
}

/** The run `--against RUN` names, as data: its run.json (read by the caller) and how messages name it. */
export interface Baseline {
  run: SavedSettings;
  file: string;
}

/** RUN's tasks and rollouts per task, from its run.json: what the run is compared with, pair by pair. */
export function baselineTasks(baseline: Baseline): { n: number; rollouts: number } {
  const theirs = <K extends 'num' | 'rollouts'>(key: K) =>
    pickOne(key, {}, null, '', baseline.run, baseline.file).value;
  return { n: theirs('num'), rollouts: theirs('rollouts') };
}

/** The settings of RUN's tasks a run `--against RUN` takes: the same generator, so the same tasks. */
const TASK_KEYS = ['numTransactions', 'faultRate', 'seed'] as const;

/**
 * `--against RUN --until decided`: each needs the other; the run takes RUN's task settings
 * where none were given (a resume has them saved), refuses different ones, and runs at most
 * RUN's tasks (`-n` defaults to RUN's).
 */
function checkAgainst(
  v: SettingValues,
  given: Set<SettingKey>,
  names: Record<SettingKey, string>,
  baseline: Baseline | null,
  resuming: boolean,
): void {
  if (v.against === null) {
    if (v.until !== null)
      throw new ConfigError(`${names.until} ${v.until} needs --against RUN, the run to compare with`);
    return;
  }
  if (v.until === null)
    throw new ConfigError(`${names.against} needs --until decided (the rule that says when the comparison is over)`);
  if (v.shard !== null)
    throw new ConfigError(`${names.against} runs RUN's tasks in index order and does not take --shard`);
  if (v.precision !== null)
    throw new ConfigError(`${names.against} and ${names.precision} are two stopping rules: give one`);
  if (baseline === null) return;
  const theirs = (key: SettingKey): unknown => pickOne(key, {}, null, '', baseline.run, baseline.file).value;
  // A new run takes what it was not given from RUN; a resume has its own saved, and they must agree.
  const take = (key: SettingKey): boolean => !given.has(key) && !resuming;
  for (const key of TASK_KEYS) {
    if (take(key)) (v as Record<SettingKey, unknown>)[key] = theirs(key);
    else if (canon(v[key]) !== canon(theirs(key)))
      throw new ConfigError(
        `${names[key]} ${canon(v[key])} differs from ${baseline.file}'s ${canon(theirs(key))}: --against runs RUN's own tasks (leave it out to take RUN's)`,
      );
  }
  const most = theirs('num') as number;
  if (take('num')) v.num = most;
  else if (v.num > most)
    throw new ConfigError(
      `${names.num} ${v.num} is more tasks than ${baseline.file} holds (${most}): --against compares task by task`,
    );
}

/** Refuses a measured setting given now with a value other than the saved run's. */
function refuseChanges(now: SettingValues, given: Set<SettingKey>, saved: SavedSettings): void {
  for (const key of SETTING_KEYS) {
    const spec = SETTINGS[key] as Setting<unknown>;
    if (!spec.measured || !given.has(key) || spec.runJson === null) continue;
    const before = pickOne(key, {}, null, '', saved, 'the saved run.json').value;
    const show = (x: unknown): string => canon(x === null ? null : spec.show ? spec.show(x) : x);
    if (canon(spec.save ? spec.save(now[key]) : now[key]) !== canon(spec.save ? spec.save(before) : before)) {
      throw new ConfigError(
        `--resume: ${flagName(spec)} ${show(now[key])} differs from the saved run's ${show(before)}; a resumed run keeps its configuration (start a new run with --output to change it)`,
      );
    }
  }
}

/** The run.json entries of these settings, at their declared keys. */
export function settingsForRunJson(values: SettingValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const spec = SETTINGS[key] as Setting<unknown>;
    if (spec.runJson === null) continue;
    const parts = spec.runJson.split('.');
    let at = out;
    for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
    at[parts.at(-1)!] = spec.save ? spec.save(values[key]) : values[key];
  }
  return out;
}
