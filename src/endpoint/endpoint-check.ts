/**
 * Asking an endpoint about itself before a run spends money: the run's first real task with
 * the run's exact model and sampling (`bas check`, `bas eval --check`), its reply graded as a
 * rollout's would be, and the model list (`bas models`). The check passes only when the reply
 * could score: a reply that is empty, cut by the token limit or without an answer the scorer
 * can read fails it, with what to change. Everything the endpoint sends back is outside
 * text: it is cut short and stripped of control characters before it reaches a terminal.
 */
import type OpenAI from 'openai';
import type { APIError } from 'openai';
import { MalformedResponseError, StreamCutError, StreamIdleError, StreamReportedError } from '../errors/index.js';
import { generateTask } from '../task/generate.js';
import { DEFAULT_TASK_CONFIG } from '../task/config.js';
import type { AnswerKey, ChatMessage } from '../task/types.js';
import { classifyError, closedByServer } from './classify.js';
import { isSdkStatusError } from './sdk-errors.js';
import { inspectReply } from './completion.js';
import { adviceFor, grade, type GradedReply } from './probe-grade.js';
import { requestFields } from './client.js';
import type { Sampling } from '../settings/setting-table.js';
import { makeSdk, type SdkOptions } from './sdk.js';
import { isEventStream, requestStreamed, streamParams } from './event-stream.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './http-fetch.js';
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
  /** The task sent: which one, and how the reply to it was graded (null until a 200 came). */
  task: { index: number };
  graded: GradedReply | null;
  /** Why a run with these settings cannot succeed, with what to change; null when it can. */
  advice: string | null;
  /**
   * With `--stream`: whether the reply came as events (false: the endpoint ignored `stream`
   * and sent a whole reply; null: no reply came) and the time to its first token. Null
   * when no stream was asked for.
   */
  stream: { streamed: boolean | null; ttftMs: number | null } | null;
}

/** How the check asks for its reply: as a stream of events, with eval's idle bound (`--stream`). */
export interface ProbeStream {
  idleTimeoutMs: number;
}

/** A task to send: its index, prompt and answer key. */
export interface CheckTask {
  index: number;
  prompt: readonly ChatMessage[];
  key: AnswerKey;
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

/** The run's first task when none is given: task 0 of the default configuration. */
function defaultTask(): CheckTask {
  const t = generateTask(DEFAULT_TASK_CONFIG, 0);
  return { index: 0, prompt: t.prompt, key: t.key };
}

/** What to change when a stream failed where a whole reply might not have. */
function streamAdvice(err: unknown, message: string, stream: ProbeStream): string | null {
  if (err instanceof StreamIdleError)
    return `${message}: raise --stream-idle-timeout (now ${stream.idleTimeoutMs / 1000} s) or run without --stream`;
  if (err instanceof StreamCutError)
    return `${message}: something between bas and the endpoint (a proxy, a load balancer) may cut long responses; run without --stream`;
  if (err instanceof StreamReportedError) return `${message}: the endpoint failed in the middle of the stream`;
  return null;
}

/** The endpoint's answer once it came: a stream can still fail after its status and headers. */
interface Answer {
  status: number;
  headers: HeaderBag;
}

/** A report of nothing learned yet. */
function blankReport(sent: Record<string, unknown>, task: CheckTask, stream: ProbeStream | null): ProbeReport {
  return {
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
    task: { index: task.index },
    graded: null,
    advice: null,
    stream: stream ? { streamed: null, ttftMs: null } : null,
  };
}

/** The endpoint answered: it took the key, the model and the fields. */
function markAccepted(report: ProbeReport, answer: Answer): void {
  Object.assign(report, { reachable: true, status: answer.status, keyAccepted: true, modelKnown: true });
  report.paramsAccepted = true;
  report.rateLimits = rateLimitHeaders(answer.headers);
}

/** One request as eval would send it; `heard` gets the status and headers as soon as they come. */
async function sendTask(
  ep: Endpoint,
  fields: ReturnType<typeof requestFields>,
  task: CheckTask,
  stream: ProbeStream | null,
  signal: AbortSignal,
  heard: (status: number, headers: unknown) => void,
): Promise<{ data: unknown; stream: ProbeReport['stream'] }> {
  if (stream) {
    const sdk = await makeSdk({ ...ep, passThrough: isEventStream });
    const bounds = { maxBytes: ep.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, idleMs: stream.idleTimeoutMs };
    const r = await requestStreamed(sdk, { ...fields, messages: task.prompt }, signal, bounds, heard);
    return { data: r.body, stream: { streamed: r.streamed, ttftMs: r.ttftMs === null ? null : Math.round(r.ttftMs) } };
  }
  const body = {
    ...fields,
    messages: task.prompt as ChatMessage[],
    stream: false,
  } as OpenAI.ChatCompletionCreateParamsNonStreaming;
  const { data, response } = await (await makeSdk(ep)).chat.completions.create(body).withResponse();
  heard(response.status, response.headers);
  return { data, stream: null };
}

/** A reply came: grade it as a rollout's, and say what would stop a run from scoring. */
function reportReply(report: ProbeReport, data: unknown, task: CheckTask, sampling: Sampling): void {
  const view = inspectReply(data);
  report.reply = clean(view.text ?? '', 80);
  report.graded = grade(view, task.key);
  const advice = adviceFor(view, report.graded, sampling);
  report.advice = advice === null ? null : clean(advice, 400);
  report.ok = report.advice === null;
}

/** A failure without an HTTP status: the connection, the stream, or a body that is not a reply. */
function reportUnanswered(
  report: ProbeReport,
  err: unknown,
  aborted: boolean,
  stream: ProbeStream | null,
  answer: Answer | null,
): void {
  const failure = classifyError(err, aborted);
  const streamFailed = stream ? streamAdvice(err, clean(failure.message), stream) : null;
  if (streamFailed !== null) {
    // The endpoint answered (a stream error comes only after its status): the stream itself failed.
    if (answer) markAccepted(report, answer);
    report.stream = { streamed: true, ttftMs: null };
    report.message = clean(failure.message);
    report.advice = clean(streamFailed, 400);
    return;
  }
  if (closedByServer(err)) {
    // It took the connection, so it is there; it just would not answer.
    report.reachable = true;
    report.message = 'the server accepted the connection, then closed it without an answer';
    return;
  }
  // A body that is not a chat completion, or one too large to read, still came from a server.
  report.reachable = failure.type === 'malformed' || failure.type === 'response_too_large';
  report.message = clean(failure.message);
  if (failure.type === 'response_too_large')
    report.advice = 'the reply is larger than --max-response-mb allows: raise it if replies this large are expected';
}

/** An HTTP error status: which of key, model and fields it tells about. */
function reportRefusal(report: ProbeReport, err: APIError): void {
  report.reachable = true;
  report.status = err.status ?? null;
  report.rateLimits = rateLimitHeaders(err.headers as HeaderBag);
  const failure = classifyError(err, false);
  // The provider's own words; the failure's, without the status it already names, else.
  const said = (err.error as { message?: unknown } | undefined)?.message;
  report.message = clean(
    typeof said === 'string' && said.trim() !== '' ? said : failure.message.replace(/^HTTP \d+: /, ''),
  );
  const status = err.status ?? 0;
  // A redirect is answered before the key or the model is looked at: neither was tested.
  if (status >= 300 && status < 400) return;
  report.keyAccepted = status !== 401 && status !== 403;
  if (!report.keyAccepted) return;
  if (status === 404 && failure.type === 'auth') {
    report.modelKnown = false;
    return;
  }
  if (status === 400 || status === 422) {
    report.modelKnown = true;
    report.paramsAccepted = false;
    report.refusedParam = refusedField(err, report.sent);
  }
}

/**
 * Sends `task` (by default the first task of the default configuration) with the run's model
 * and sampling, as a stream when `stream` is given (as eval would send it), grades the reply
 * as a rollout's, and reports what came back.
 */
export async function probe(
  ep: Endpoint,
  model: string,
  sampling: Sampling,
  task: CheckTask = defaultTask(),
  stream: ProbeStream | null = null,
): Promise<ProbeReport> {
  const fields = requestFields(model, sampling, ep.baseURL);
  const { model: _m, ...asked } = fields;
  // What is sent besides model and messages, as the parameters line shows it.
  const report = blankReport(stream ? { ...streamParams(asked) } : asked, task, stream);
  const started = performance.now();
  // A stream is read by bas, not the SDK, so the request timeout bounds it through a signal, as in eval.
  const timeout = new AbortController();
  const timer = stream ? setTimeout(() => timeout.abort(), ep.requestTimeoutMs) : null;
  let answer: Answer | null = null;
  const heard = (status: number, headers: unknown): void => {
    answer = { status, headers: headers as HeaderBag };
  };
  try {
    const sent = await sendTask(ep, fields, task, stream, timeout.signal, heard);
    if (sent.stream) report.stream = sent.stream;
    markAccepted(report, answer!);
    report.latencyMs = performance.now() - started;
    reportReply(report, sent.data, task, sampling);
  } catch (err) {
    report.latencyMs = performance.now() - started;
    if (isSdkStatusError(err)) reportRefusal(report, err);
    else reportUnanswered(report, err, timeout.signal.aborted, stream, answer);
  } finally {
    if (timer) clearTimeout(timer);
  }
  return report;
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
  const body: unknown = await (await makeSdk(ep)).get('/models');
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
