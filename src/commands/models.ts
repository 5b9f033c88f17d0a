/**
 * `bas models`: the models an endpoint lists (GET /models), one id a line, or JSON.
 * Exit: 0 on success, 1 when the endpoint cannot be reached or refuses, 2 for bad input.
 */
import { FatalRunError } from '../errors/index.js';
import { urlWithoutCredentials } from '../io/secrets.js';
import { classifyError } from '../endpoint/classify.js';
import { outsideText } from '../io/outside-text.js';
import { listModels } from '../endpoint/endpoint-check.js';
import { apiKeyFor } from '../endpoint/api-key.js';
import { resolveEndpoint, type EvalFlags } from '../settings/settings.js';
import * as std from '../io/std.js';

export async function modelsCommand(flags: EvalFlags): Promise<void> {
  const ep = resolveEndpoint(flags, std.env());
  const apiKey = apiKeyFor(ep, std.env());
  let models;
  try {
    models = await listModels({ baseURL: ep.baseUrl, apiKey, requestTimeoutMs: 60_000 });
  } catch (err) {
    throw new FatalRunError(
      `cannot list the models of ${urlWithoutCredentials(ep.baseUrl)}: ${outsideText(classifyError(err, false).message)}`,
    );
  }
  if (flags.json) {
    std.stdout().write(`${JSON.stringify(models, null, 2)}\n`);
    return;
  }
  for (const m of models) std.stdout().write(`${m.id}\n`);
  std
    .stderr()
    .write(`bas: ${models.length} model${models.length === 1 ? '' : 's'} at ${urlWithoutCredentials(ep.baseUrl)}\n`);
}
