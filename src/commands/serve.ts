/**
 * `bas serve`: a local OpenAI-compatible endpoint backed by a built-in policy, for trying a
 * pipeline without a provider and for the end-to-end tests. Runs until SIGINT or SIGTERM.
 */
import { ConfigError } from '../errors.js';
import { parseCount, parseNumberInRange } from '../task/config.js';
import { isPolicyName, POLICY_NAMES } from '../task/policies.js';
import { DEFAULT_MAX_REQUEST_BYTES, startServer, type ServeOptions } from '../serve/serve.js';

export interface ServeFlags {
  port?: string;
  host?: string;
  policy?: string;
  latency?: string;
  errorRate?: string;
  rateLimitRate?: string;
  retryAfter?: string;
  hangRate?: string;
  malformedRate?: string;
  rateLimit?: string;
  wholeSecondRetryAfter?: boolean;
  cutRate?: string;
  stallRate?: string;
  maxRequestMb?: string;
  seed?: string;
  apiKey?: string;
  models?: string;
  reasoningTokens?: string;
}

/** Checks the flags; every bad value names its flag and range. */
export function serveOptions(f: ServeFlags): ServeOptions {
  const policy = f.policy ?? 'oracle';
  if (!isPolicyName(policy))
    throw new ConfigError(`--policy must be one of ${POLICY_NAMES.join(', ')}, got ${JSON.stringify(policy)}`);
  const rate = (v: string | undefined, name: string): number =>
    v === undefined ? 0 : parseNumberInRange(v, name, 0, 1);
  const o: ServeOptions = {
    port: f.port === undefined ? 8089 : parseCount(f.port, '--port', 0, 65535),
    host: f.host ?? '127.0.0.1',
    policy,
    latencyMs: f.latency === undefined ? 0 : parseNumberInRange(f.latency, '--latency', 0, 3_600_000),
    errorRate: rate(f.errorRate, '--error-rate'),
    rateLimitRate: rate(f.rateLimitRate, '--rate-limit-rate'),
    retryAfterS: f.retryAfter === undefined ? 1 : parseNumberInRange(f.retryAfter, '--retry-after', 0, 3600),
    hangRate: rate(f.hangRate, '--hang-rate'),
    malformedRate: rate(f.malformedRate, '--malformed-rate'),
    rateLimitRps: f.rateLimit === undefined ? 0 : parseNumberInRange(f.rateLimit, '--rate-limit', 0, 1_000_000),
    wholeSecondRetryAfter: f.wholeSecondRetryAfter === true,
    cutRate: rate(f.cutRate, '--cut-rate'),
    stallRate: rate(f.stallRate, '--stall-rate'),
    maxRequestBytes:
      f.maxRequestMb === undefined
        ? DEFAULT_MAX_REQUEST_BYTES
        : Math.round(parseNumberInRange(f.maxRequestMb, '--max-request-mb', 0.001, 1024) * 1024 * 1024),
    seed: f.seed === undefined ? 1 : parseCount(f.seed, '--seed', 0, 2 ** 32 - 1),
    reasoningTokens:
      f.reasoningTokens === undefined ? 0 : parseCount(f.reasoningTokens, '--reasoning-tokens', 0, 10_000_000),
    apiKey: f.apiKey === undefined ? null : f.apiKey,
    models:
      f.models === undefined
        ? null
        : f.models
            .split(',')
            .map((m) => m.trim())
            .filter(Boolean),
  };
  if (o.apiKey === '') throw new ConfigError('--api-key must not be empty');
  if (o.host.trim() === '') throw new ConfigError('--host must not be empty');
  if (o.wholeSecondRetryAfter && !o.rateLimitRps)
    throw new ConfigError('--whole-second-retry-after shapes the 429s of --rate-limit; give --rate-limit RPS too');
  const sum = o.errorRate + o.rateLimitRate + o.hangRate + o.malformedRate + o.cutRate! + o.stallRate!;
  if (sum > 1 + 1e-9) {
    throw new ConfigError(
      `--error-rate, --rate-limit-rate, --hang-rate, --malformed-rate, --cut-rate and --stall-rate add up to ${sum}; together they must be at most 1`,
    );
  }
  return o;
}

/** Runs `bas serve` until a signal. */
export async function serve(flags: ServeFlags): Promise<void> {
  const o = serveOptions(flags);
  let server;
  try {
    server = await startServer(o);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new ConfigError(
      `cannot listen on ${o.host}:${o.port}${code === 'EADDRINUSE' ? ': the port is in use (try --port 0)' : code ? ` (${code})` : ''}`,
    );
  }
  const faults = [
    o.errorRate && `500s ${o.errorRate}`,
    o.rateLimitRate && `429s ${o.rateLimitRate}`,
    o.hangRate && `hangs ${o.hangRate}`,
    o.malformedRate && `malformed ${o.malformedRate}`,
    o.cutRate && `cut ${o.cutRate}`,
    o.stallRate && `stalled ${o.stallRate}`,
    o.rateLimitRps &&
      `at most ${o.rateLimitRps} requests/s${o.wholeSecondRetryAfter ? ' (whole-second Retry-After)' : ''}`,
  ].filter(Boolean);
  const thinks = o.reasoningTokens ? `, reasons ${o.reasoningTokens} tokens before answering` : '';
  process.stdout.write(
    `bas serve: listening on ${server.url} (policy ${o.policy}, latency ${o.latencyMs} ms${thinks}${faults.length ? `, faults: ${faults.join(', ')}` : ''}${o.apiKey ? ', key required' : ''})\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  const s = server.stats;
  process.stderr.write(
    `bas serve: ${s.requests} requests, ${s.ok} answered, ${s.errors} 500s, ${s.rateLimited} 429s, ${s.hung} hung, ${s.malformed} malformed, ${s.cut} cut, ${s.stalled} stalled, ${s.throttled} over the rate limit, ${s.unauthorized} refused, ${s.rejected} rejected (400/413), ${s.failed} failed (500); usage reported: ${s.promptTokens} prompt, ${s.completionTokens} completion (${s.reasoningTokens} reasoning) tokens\n`,
  );
}
