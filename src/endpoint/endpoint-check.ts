/**
 * Asking an endpoint about itself before a run spends money: one small chat request with the
 * run's exact model and sampling (`bas check`, `bas eval --check`), and the model list
 * (`bas models`). Everything the endpoint sends back is outside text: it is cut short and
 * stripped of control characters before it reaches a terminal.
 */
import type OpenAI from 'openai';
import { APIError } from 'openai';
import { MalformedResponseError } from '../errors/index.js';
import { classifyError, closedByServer } from './classify.js';
import { requestFields, type Sampling } from './client.js';
import { makeSdk, type SdkOptions } from './sdk.js';
import { outsideText } from '../io/outside-text.js';

/** The endpoint asked: its URL, key and bounds (`--max-response-mb` as maxResponseBytes). */
export type Endpoint = SdkOptions;

/** What one probe learned; `null` where the request never got far enough to tell. */
export interface ProbeReport {
  ok: boolean;
  reachable: boolean;
  /** HTTP status of the reply; null when none came. */
  status: number | null;
  keyAccepted: boolean | null;
  modelKnown: boolean | null;
  paramsAccepted: boolean | null;
  /** The request field the provider refused, when it named one (or its message did). */
  refusedParam: string | null;
  /** The provider's own words, or the cause of a failed connection. */
  message: string | null;
  latencyMs: number;
  /** Request fields sent besides model and messages. */
  sent: Record<string, unknown>;
  /** `x-ratelimit-*` and `retry-after` headers of the reply. */
  rateLimits: Record<string, string>;
  /** The reply text, shortened (a 200 only). */
  reply: string | null;
}

/** Longest piece of outside text shown. */
const MAX_SHOWN = 300;
const MAX_HEADERS = 16;

/** Outside text made safe for one terminal line (outsideText: redacted before it is cut). */
function clean(text: unknown, max = MAX_SHOWN): string {
  return outsideText(text, max);
}

type HeaderBag =
  { get(name: string): string | null; forEach?(fn: (value: string, key: string) => void): void } | null | undefined;

function rateLimitHeaders(headers: HeaderBag): Record<string, string> {
  // Header names come from outside: a prototype-free object, so no name can reach Object.prototype.
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (!headers?.forEach) return out;
  headers.forEach((value, key) => {
    const k = key.toLowerCase();
    if (
      (k.startsWith('x-ratelimit-') || k === 'retry-after' || k === 'retry-after-ms') &&
      Object.keys(out).length < MAX_HEADERS
    ) {
      out[clean(k, 64)] = clean(value, 100);
    }
  });
  return out;
}

/** The sent field the provider's refusal names: its `param`, else the first field its message mentions. */
function refusedField(err: APIError, sent: Record<string, unknown>): string | null {
  const param = typeof err.param === 'string' ? err.param : null;
  if (param) return clean(param, 64);
  const said = String((err.error as { message?: unknown } | undefined)?.message ?? err.message).toLowerCase();
  return Object.keys(sent).find((field) => said.includes(field.toLowerCase())) ?? null;
}

/** Sends one small request with the run's model and sampling, and reports what came back. */
export async function probe(ep: Endpoint, model: string, sampling: Sampling): Promise<ProbeReport> {
  const fields = requestFields(model, sampling, ep.baseURL);
  const { model: _m, ...sent } = fields;
  const report: ProbeReport = {
    ok: false,
    reachable: false,
    status: null,
    keyAccepted: null,
    modelKnown: null,
    paramsAccepted: null,
    refusedParam: null,
    message: null,
    latencyMs: 0,
    sent,
    rateLimits: {},
    reply: null,
  };
  const messages = [{ role: 'user' as const, content: 'This is a connection check. Reply with the single word OK.' }];
  const started = performance.now();
  try {
    const body = { ...fields, messages, stream: false } as OpenAI.ChatCompletionCreateParamsNonStreaming;
    const { data, response } = await makeSdk(ep).chat.completions.create(body).withResponse();
    report.latencyMs = performance.now() - started;
    Object.assign(report, {
      ok: true,
      reachable: true,
      status: response.status,
      keyAccepted: true,
      modelKnown: true,
      paramsAccepted: true,
    });
    report.rateLimits = rateLimitHeaders(response.headers as HeaderBag);
    const choice = (data as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0];
    report.reply = clean(choice?.message?.content ?? '', 80);
    return report;
  } catch (err) {
    report.latencyMs = performance.now() - started;
    if (!(err instanceof APIError) || typeof err.status !== 'number') {
      const failure = classifyError(err, false);
      if (closedByServer(err)) {
        // It took the connection, so it is there; it just would not answer.
        report.reachable = true;
        report.message = 'the server accepted the connection, then closed it without an answer';
        return report;
      }
      // A body that is not a chat completion still came from a server.
      report.reachable = failure.type === 'malformed';
      report.message = clean(failure.message);
      return report;
    }
    report.reachable = true;
    report.status = err.status;
    report.rateLimits = rateLimitHeaders(err.headers as HeaderBag);
    const failure = classifyError(err, false);
    // The provider's own words; the failure's, without the status it already names, else.
    const said = (err.error as { message?: unknown } | undefined)?.message;
    report.message = clean(
      typeof said === 'string' && said.trim() !== '' ? said : failure.message.replace(/^HTTP \d+: /, ''),
    );
    // A redirect is answered before the key or the model is looked at: neither was tested.
    if (err.status >= 300 && err.status < 400) return report;
    if (err.status === 401 || err.status === 403) {
      report.keyAccepted = false;
      return report;
    }
    report.keyAccepted = true;
    if (err.status === 404 && failure.type === 'auth') {
      report.modelKnown = false;
      return report;
    }
    if (err.status === 400 || err.status === 422) {
      report.modelKnown = true;
      report.paramsAccepted = false;
      report.refusedParam = refusedField(err, sent);
    }
    return report;
  }
}

/** One model of `GET /models`. */
export interface ModelEntry {
  id: string;
  owned_by: string | null;
}

/** Most models listed: a router lists a few hundred, and the page is outside text. */
const MAX_MODELS = 20_000;

/** The endpoint's models, sorted by id. Throws the SDK's error on failure (classify it). */
export async function listModels(ep: Endpoint): Promise<ModelEntry[]> {
  // Read raw: the SDK's page takes any 200 (an HTML sign-in page, `{}`) as an empty list, and
  // a wrong base URL would then pass as "0 models".
  const body: unknown = await makeSdk(ep).get('/models');
  const data = body !== null && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) {
    throw new MalformedResponseError(
      'the reply is not a model list (it has no "data" array); is the base URL the API\'s, ending in /v1?',
    );
  }
  const out: ModelEntry[] = [];
  for (const m of data as unknown[]) {
    if (m === null || typeof m !== 'object') continue;
    const entry = m as { id?: unknown; owned_by?: unknown };
    if (typeof entry.id !== 'string') continue;
    out.push({
      id: clean(entry.id, 200),
      owned_by: typeof entry.owned_by === 'string' ? clean(entry.owned_by, 100) : null,
    });
    if (out.length >= MAX_MODELS) break;
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The report in a few lines, for a terminal. */
export function renderProbe(r: ProbeReport, header: string): string {
  const yes = (v: boolean | null, good: string, bad: string): string => (v === null ? 'not tested' : v ? good : bad);
  const sentText =
    Object.entries(r.sent)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ') || 'none besides model and messages';
  const params =
    r.paramsAccepted === false
      ? `refused${r.refusedParam ? `: ${r.refusedParam}` : ''} (sent ${sentText})`
      : yes(r.paramsAccepted, `accepted (${sentText})`, 'refused');
  const limits = Object.entries(r.rateLimits)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  const lines = [
    header,
    `  reachable    ${!r.reachable ? 'no' : r.status === null ? 'yes (no HTTP answer)' : `yes (HTTP ${r.status})`}`,
    `  key          ${yes(r.keyAccepted, 'accepted', 'refused')}`,
    `  model        ${yes(r.modelKnown, 'known', 'not known to this endpoint')}`,
    `  parameters   ${params}`,
    `  latency      ${Math.round(r.latencyMs)} ms`,
    `  rate limits  ${limits || 'no x-ratelimit-* headers'}`,
  ];
  if (r.message) lines.push(`  said         ${r.message}`);
  if (r.ok && r.reply === '')
    lines.push('  note         the reply was empty (a reasoning model may need more --max-tokens)');
  lines.push(`  result       ${r.ok ? 'ok' : 'FAILED'}`);
  return lines.join('\n');
}
