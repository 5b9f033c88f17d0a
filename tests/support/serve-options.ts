/** `bas serve`'s options for an in-process server (startServer) that answers every request well: no faults, no key. */
import type { ServeOptions } from '../../src/serve/serve.js';

export const QUIET_SERVE: Readonly<ServeOptions> = {
  port: 0,
  host: '127.0.0.1',
  policy: 'oracle',
  latencyMs: 0,
  errorRate: 0,
  rateLimitRate: 0,
  retryAfterS: 1,
  hangRate: 0,
  malformedRate: 0,
  rateLimitRps: 0,
  seed: 1,
  apiKey: null,
  models: null,
};
