/**
 * Asking an endpoint about itself before a run spends money: the run's first real task with
 * the run's exact model and sampling (`bas check`, `bas eval --check`), its reply graded as a
 * rollout's would be, and the model list (`bas models`). The check passes only when the reply
 * could score: a reply that is empty, cut by the token limit or without an answer the scorer
 * can read fails it, with what to change. Everything the endpoint sends back is outside
 * text: it is cut short and stripped of control characters before it reaches a terminal.
 */
import OpenAI, { APIError } from 'openai';
import { generateTask } from '../task/generate.js';
import { DEFAULT_TASK_CONFIG } from '../task/config.js';
import { scoreReply } from '../task/score.js';
import type { AnswerKey, ChatMessage } from '../task/types.js';
import { classifyError } from './classify.js';
import { inspectReply, MalformedResponseError, type ReplyView } from './completion.js';
import { requestFields, type Sampling } from './client.js';
import { DEFAULT_MAX_RESPONSE_BYTES, makeNodeFetch } from './http-fetch.js';
import { redact, registerSecret } from '../io/secrets.js';
import { terminalText } from '../io/terminal-text.js';

export interface Endpoint {
  baseURL: string;
  apiKey: string;
  requestTimeoutMs: number;
  /** Cap on a response body (`--max-response-mb`); the HTTP client's default when absent. */
  maxResponseBytes?: number;
}

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
}

/** A reply to the check's task, as a rollout would see it. */
interface GradedReply {
  finishReason: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Null when the endpoint does not report the split. */
  reasoningTokens: number | null;
  /** Completion tokens less reasoning tokens; null when the split is not reported. */
  contentTokens: number | null;
  contentChars: number;
  reasoningChars: number;
  /** True when the scorer found an answer it could read. */
  parsed: boolean;
  /** Why the answer could not be read (no reply, no answer block, bad JSON …). */
  unparsed: string | null;
  /** The rollout's reward; null when there was no reply to score (the rollout would error). */
  reward: number | null;
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

/** Outside text made safe for one terminal line: control characters out, length bounded. */
export function clean(text: unknown, max = MAX_SHOWN): string {
  const s = terminalText(redact(String(text ?? '').slice(0, max * 4)))
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function sdkFor(ep: Endpoint): OpenAI {
  registerSecret(ep.apiKey);
  const fetch = makeNodeFetch({ maxResponseBytes: ep.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES });
  return new OpenAI({
    apiKey: ep.apiKey,
    baseURL: ep.baseURL,
    maxRetries: 0,
    timeout: Math.max(1, Math.ceil(ep.requestTimeoutMs)),
    fetch,
  });
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

/** "4,096". */
function grouped(n: number): string {
  return n.toLocaleString('en-US');
}

/** The run's first task when none is given: task 0 of the default configuration. */
function defaultTask(): CheckTask {
  const t = generateTask(DEFAULT_TASK_CONFIG, 0);
  return { index: 0, prompt: t.prompt, key: t.key };
}

/** Grades a 200's body against the task's key, as the runner would score it. */
function grade(view: ReplyView, key: AnswerKey): GradedReply {
  const u = view.usage;
  const completion = u?.completion_tokens ?? null;
  const reasoning = u?.reasoning_tokens ?? null;
  const scores = view.text === null ? null : scoreReply(view.text, key);
  return {
    finishReason: view.finish_reason,
    promptTokens: u?.prompt_tokens ?? null,
    completionTokens: completion,
    reasoningTokens: reasoning,
    contentTokens: completion !== null && reasoning !== null ? Math.max(0, completion - reasoning) : null,
    contentChars: view.text?.length ?? 0,
    reasoningChars: view.reasoning_chars,
    parsed: scores?.metrics.parsed === 1,
    unparsed: scores === null ? (view.problem ?? 'no reply') : (scores.detail.unparseable ?? null),
    reward: scores?.reward ?? null,
  };
}

/**
 * Why a run with these settings cannot succeed, judged from the check's reply, with what to
 * change; null when it can. A wrong answer is not a reason: that is what the run measures.
 */
function adviceFor(view: ReplyView, g: GradedReply, sampling: Sampling): string | null {
  const limit =
    sampling.max_tokens === null
      ? "set --max-tokens higher than the endpoint's default"
      : `raise --max-tokens (now ${grouped(sampling.max_tokens)})`;
  const effort =
    sampling.reasoning_effort !== null ? ` or lower --reasoning-effort (now ${sampling.reasoning_effort})` : '';
  const cut = g.finishReason === 'length';
  if (view.text === null) {
    switch (view.fault) {
      case 'cut_empty': {
        const done = g.completionTokens;
        if (done !== null && g.reasoningTokens !== null && g.reasoningTokens >= done)
          return `the model spent all ${grouped(done)} tokens reasoning and wrote no reply: ${limit}${effort}`;
        if (view.reasoning_chars > 0)
          return `the token limit ran out while the model was reasoning, before any reply: ${limit}${effort}`;
        return `the token limit ran out before any reply${done !== null ? ` (${grouped(done)} tokens)` : ''}: ${limit}${effort}`;
      }
      case 'reasoning_only':
        return "the reply is all reasoning and no content: check the server's reasoning parser or chat template";
      case 'empty':
        return g.reasoningTokens
          ? `the model reasoned for ${grouped(g.reasoningTokens)} tokens but wrote no reply: check the model and its chat template`
          : 'the model sent an empty reply: check the model and its chat template';
      case 'refused':
        return `the model refused the task (${view.problem ?? 'no reason given'})`;
      default:
        return `the reply is not a chat completion (${view.problem ?? 'unreadable'}): is the base URL the API's, ending in /v1?`;
    }
  }
  if (cut)
    return `the reply was cut by the token limit${g.completionTokens !== null ? ` at ${grouped(g.completionTokens)} tokens` : ''}${g.parsed ? '' : ', before its answer'}: ${limit}${effort}`;
  if (!g.parsed)
    return `the reply has no answer the scorer can read (${g.unparsed ?? 'unparsed'}): every rollout like it scores 0; check that the model follows the prompt's answer format`;
  return null;
}

/**
 * Sends `task` (by default the first task of the default configuration) with the run's model
 * and sampling, grades the reply as a rollout's, and reports what came back.
 */
export async function probe(
  ep: Endpoint,
  model: string,
  sampling: Sampling,
  task: CheckTask = defaultTask(),
): Promise<ProbeReport> {
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
    task: { index: task.index },
    graded: null,
    advice: null,
  };
  const started = performance.now();
  try {
    const body = {
      ...fields,
      messages: task.prompt as ChatMessage[],
      stream: false,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming;
    const { data, response } = await sdkFor(ep).chat.completions.create(body).withResponse();
    report.latencyMs = performance.now() - started;
    Object.assign(report, {
      reachable: true,
      status: response.status,
      keyAccepted: true,
      modelKnown: true,
      paramsAccepted: true,
    });
    report.rateLimits = rateLimitHeaders(response.headers as HeaderBag);
    const view = inspectReply(data as unknown);
    report.reply = clean(view.text ?? '', 80);
    report.graded = grade(view, task.key);
    report.advice = adviceFor(view, report.graded, sampling);
    if (report.advice !== null) report.advice = clean(report.advice, 400);
    report.ok = report.advice === null;
    return report;
  } catch (err) {
    report.latencyMs = performance.now() - started;
    if (!(err instanceof APIError) || typeof err.status !== 'number') {
      const failure = classifyError(err, false);
      // A body that is not a chat completion, or one too large to read, still came from a server.
      report.reachable = failure.type === 'malformed' || failure.type === 'response_too_large';
      report.message = clean(failure.message);
      if (failure.type === 'response_too_large')
        report.advice =
          'the reply is larger than --max-response-mb allows: raise it if replies this large are expected';
      return report;
    }
    report.reachable = true;
    report.status = err.status;
    report.rateLimits = rateLimitHeaders(err.headers as HeaderBag);
    const failure = classifyError(err, false);
    report.message = clean((err.error as { message?: unknown } | undefined)?.message ?? failure.message);
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
  const body: unknown = await sdkFor(ep).get('/models');
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

/** "4,096 completion (4,000 reasoning, 96 content)", from what the endpoint reported. */
function tokenLine(g: GradedReply): string {
  if (g.completionTokens === null) return 'not reported';
  const split =
    g.reasoningTokens === null
      ? 'reasoning not reported'
      : `${grouped(g.reasoningTokens)} reasoning, ${grouped(g.contentTokens ?? 0)} content`;
  const prompt = g.promptTokens === null ? '' : `, ${grouped(g.promptTokens)} prompt`;
  return `${grouped(g.completionTokens)} completion (${split})${prompt}`;
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
    `  reachable    ${r.reachable ? `yes (HTTP ${r.status})` : 'no'}`,
    `  key          ${yes(r.keyAccepted, 'accepted', 'refused')}`,
    `  model        ${yes(r.modelKnown, 'known', 'not known to this endpoint')}`,
    `  parameters   ${params}`,
    `  latency      ${Math.round(r.latencyMs)} ms`,
    `  rate limits  ${limits || 'no x-ratelimit-* headers'}`,
  ];
  if (r.message) lines.push(`  said         ${r.message}`);
  const g = r.graded;
  if (g) {
    lines.push(
      `  task         ${r.task.index} (the run's first)`,
      `  finish       ${g.finishReason === null ? 'not given' : clean(g.finishReason, 40)}`,
      `  tokens       ${tokenLine(g)}`,
      `  answer       ${g.parsed ? 'parsed' : `not parsed: ${clean(g.unparsed ?? '', 200)}`}`,
      `  reward       ${g.reward === null ? 'none (the rollout would error)' : g.reward.toFixed(3)}`,
    );
  }
  if (r.advice) lines.push(`  advice       ${r.advice}`);
  lines.push(`  result       ${r.ok ? 'ok' : 'FAILED'}`);
  return lines.join('\n');
}
