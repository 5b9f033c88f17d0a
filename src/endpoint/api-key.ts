/**
 * The API key of a run, read from the environment variable its plan names when the run (or a
 * check) starts; the plan holds the variable's name, never the key.
 */
import { ConfigError } from '../errors/index.js';
import { PLACEHOLDER_KEY } from '../settings/providers.js';

/**
 * The API key, from the variable the settings name. A local provider's server needs none: an
 * unset variable then gives a placeholder. The key itself never appears in a message.
 */
export function apiKeyFor(s: { apiKeyVar: string; keyRequired: boolean }, env: NodeJS.ProcessEnv): string {
  const apiKey = env[s.apiKeyVar];
  if (!apiKey) {
    if (!s.keyRequired) return PLACEHOLDER_KEY;
    throw new ConfigError(
      `${s.apiKeyVar} is not set: export the API key in it, or name the variable that holds it (bas: --api-key-var; a config file or runEval: api_key_var); a local server that needs no key takes any value`,
    );
  }
  // A key with a line break or other control character (a file saved on Windows, a stray
  // newline) cannot go in a header: every request would fail as a network error.
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new ConfigError(
      `${s.apiKeyVar} holds characters that cannot go in an HTTP header (spaces, line breaks or non-ASCII): check how the key was exported`,
    );
  }
  return apiKey;
}
