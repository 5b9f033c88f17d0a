/**
 * The provider registry behind `--provider NAME`: the shipped configs/providers.toml, with a
 * user's own file (`--providers FILE`, else $BAS_PROVIDERS) adding providers or overriding
 * fields of shipped ones. A provider gives a base URL and the variable its key is read from.
 */
import { readSmallFile } from '../io/jsonl.js';
import { registerSecret } from '../io/secrets.js';
import { fileURLToPath } from 'node:url';
import { parse, TomlError } from 'smol-toml';
import { ConfigError, fileError, FileTooLargeError } from '../errors/index.js';
import { parseBaseURL, parseProviderName, parseVarName } from './setting-parse.js';

/** One provider of the registry. */
export interface Provider {
  name: string;
  title: string;
  baseURL: string;
  apiKeyVar: string;
  /** False for local servers: without the variable set, bas sends a placeholder key. */
  keyRequired: boolean;
  /** Whether it runs OpenAI-shaped batch jobs (files of purpose `batch`, `/batches`): `bas eval --batch`. */
  batch: boolean;
  notes: string;
}

/** Where the shipped registry sits, from src/run or dist/run alike. */
const SHIPPED_PROVIDERS = fileURLToPath(new URL('../../configs/providers.toml', import.meta.url));

/** The key sent to a local server that needs none (the SDK refuses an empty one). */
export const PLACEHOLDER_KEY = 'none';

const FIELDS = new Set(['title', 'base_url', 'api_key_var', 'key_required', 'batch', 'notes']);
/** A registry file is a handful of short tables; anything larger is not one. */
const MAX_FILE_BYTES = 1_000_000;

function readToml(file: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readSmallFile(file, MAX_FILE_BYTES);
  } catch (err) {
    if (err instanceof FileTooLargeError)
      throw new ConfigError(`${what} ${file} is larger than ${MAX_FILE_BYTES} bytes: not a provider registry`);
    throw fileError(`read ${what}`, file, err);
  }
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    const where = err instanceof TomlError ? ` (line ${err.line}, column ${err.column})` : '';
    throw new ConfigError(
      `${what} ${file} is not valid TOML${where}: ${String((err as Error).message).split('\n')[0]}`,
    );
  }
}

/** Adds the tables of one registry file to `into`, field by field over what is there. */
function merge(into: Map<string, Provider>, doc: Record<string, unknown>, file: string): void {
  // Names are matched without case (`--provider OpenAI` is openai), so one file naming a
  // provider twice in different cases would merge two tables in silence: refused.
  const seen = new Map<string, string>();
  for (const [rawName, entry] of Object.entries(doc)) {
    const where = `${file}: [${rawName}]`;
    const name = parseProviderName(rawName, `${file}: provider name`);
    const twin = seen.get(name);
    if (twin !== undefined)
      throw new ConfigError(
        `${file}: [${twin}] and [${rawName}] name the same provider (names are matched without case): keep one table`,
      );
    seen.set(name, rawName);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new ConfigError(`${where} must be a table`);
    const e = entry as Record<string, unknown>;
    for (const key of Object.keys(e)) {
      if (!FIELDS.has(key))
        throw new ConfigError(`${where}: unknown key "${key}" (allowed: ${[...FIELDS].join(', ')})`);
    }
    for (const key of ['title', 'base_url', 'api_key_var', 'notes']) {
      if (e[key] !== undefined && typeof e[key] !== 'string')
        throw new ConfigError(`${where}: "${key}" must be a string`);
    }
    for (const key of ['key_required', 'batch']) {
      if (e[key] !== undefined && typeof e[key] !== 'boolean')
        throw new ConfigError(`${where}: "${key}" must be true or false`);
    }
    const old = into.get(name);
    if (!old && (e.base_url === undefined || e.api_key_var === undefined)) {
      throw new ConfigError(`${where}: a new provider needs "base_url" and "api_key_var"`);
    }
    into.set(name, {
      name,
      title: (e.title as string | undefined) ?? old?.title ?? name,
      baseURL: e.base_url !== undefined ? parseBaseURL(e.base_url, `${where} base_url`) : old!.baseURL,
      apiKeyVar: e.api_key_var !== undefined ? parseVarName(e.api_key_var, `${where} api_key_var`) : old!.apiKeyVar,
      keyRequired: (e.key_required as boolean | undefined) ?? old?.keyRequired ?? true,
      batch: (e.batch as boolean | undefined) ?? old?.batch ?? false,
      notes: (e.notes as string | undefined) ?? old?.notes ?? '',
    });
  }
}

/**
 * The registry: the shipped file, then the user's (`userFile`, else $BAS_PROVIDERS) over it.
 * `shipped` is for tests.
 */
export function loadProviders(
  userFile: string | null,
  env: NodeJS.ProcessEnv,
  shipped = SHIPPED_PROVIDERS,
): Map<string, Provider> {
  const registry = new Map<string, Provider>();
  merge(registry, readToml(shipped, 'the provider registry'), shipped);
  const own = userFile ?? (env.BAS_PROVIDERS || null);
  if (own) merge(registry, readToml(own, userFile ? '--providers file' : 'BAS_PROVIDERS file'), own);
  return registry;
}

/** The provider called `name`; an unknown name is an error listing the known ones. */
export function findProvider(registry: Map<string, Provider>, name: string, source: string): Provider {
  const p = registry.get(name);
  if (!p) {
    throw new ConfigError(
      `${source}: unknown provider ${JSON.stringify(name)} (known: ${[...registry.keys()].join(', ')}; add your own with --providers FILE)`,
    );
  }
  return p;
}

/** The shipped registry, read once when a run folder's provider label is first judged. */
let shippedRegistry: Map<string, Provider> | null | undefined;

/** The shipped registry, or null when it cannot be read. */
function shipped(): Map<string, Provider> | null {
  if (shippedRegistry === undefined) {
    try {
      shippedRegistry = loadProviders(null, {});
    } catch {
      shippedRegistry = null;
    }
  }
  return shippedRegistry;
}

/**
 * The variables bas reads a key from: OPENAI_API_KEY and every provider's `api_key_var`, of
 * the shipped registry and of $BAS_PROVIDERS's file when it can be read.
 */
export function keyVarNames(env: NodeJS.ProcessEnv): string[] {
  const names = new Set(['OPENAI_API_KEY', ...[...(shipped()?.values() ?? [])].map((p) => p.apiKeyVar)]);
  if (env.BAS_PROVIDERS) {
    try {
      for (const p of loadProviders(null, env).values()) names.add(p.apiKeyVar);
    } catch {
      // A broken user registry is refused where it is used; here the shipped names serve.
    }
  }
  return [...names];
}

/**
 * Registers the value of every key variable bas reads (`keyVarNames`) that is set here, so
 * that whatever bas prints or writes has it cut out (src/io/secrets.ts), however the run it
 * shows was written: an older folder, or a batch output that echoed the key.
 */
export function registerKnownKeys(env: NodeJS.ProcessEnv): void {
  for (const name of keyVarNames(env)) {
    const value = env[name];
    if (value) registerSecret(value);
  }
}

/**
 * The provider label a run folder may show beside its base URL: `provider` itself, unless the
 * shipped registry gives that provider another host than `baseUrl`'s. bas before 0.4.1 kept a
 * provider's label (and sent its key) whatever `--base-url` said, so an old folder can say
 * "provider prime" of 127.0.0.1; such a label is dropped (null), as a new run drops it when
 * it is written. A provider the shipped registry does not know (one of the user's own) is
 * taken as recorded: nothing here can judge it. Every reader of run.json asks here.
 */
export function recordedProvider(provider: string | null, baseUrl: string | null): string | null {
  if (provider === null || baseUrl === null) return provider;
  const known = shipped()?.get(provider.toLowerCase());
  if (known === undefined) return provider;
  return originOf(baseUrl) === originOf(known.baseURL) ? provider : null;
}

/** Scheme, host and port: where a request goes, whatever the path; null for no URL. */
export function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
