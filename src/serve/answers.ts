/**
 * What `bas serve` answers with: whole completions, streams of server-sent events (as OpenAI
 * sends them: a role chunk, content pieces, a chunk with the finish reason, the usage chunk
 * when asked, `[DONE]`), API errors, and the malformed bodies sloppy endpoints send.
 */

/** A reply, the reasoning before it (when the server acts as a reasoning model), and its usage. */
export interface Answer {
  reply: string;
  reasoning: string | null;
  finish: string;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    completion_tokens_details?: { reasoning_tokens: number };
  };
}

/** mulberry32: small, fast and good enough for fault draws. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An error body as OpenAI shapes it. */
export function apiError(message: string, type: string, code: string | null): unknown {
  return { error: { message, type, code, param: null } };
}

/** The malformed answers a sloppy endpoint has been seen to give. */
export const MALFORMED: Array<(model: string) => { body: string; type: string }> = [
  () => ({ body: '{"id": "chatcmpl-x", "choices": [', type: 'application/json' }),
  (model) => ({
    body: JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion', model, choices: [] }),
    type: 'application/json',
  }),
  (model) => ({
    body: JSON.stringify({
      id: 'chatcmpl-x',
      object: 'chat.completion',
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'length' }],
    }),
    type: 'application/json',
  }),
  () => ({ body: '<html><body>502 Bad Gateway</body></html>', type: 'text/html' }),
];

/** Characters of reply per streamed chunk: a few tokens, as a model streams them. */
const STREAM_PIECE = 16;

/** A whole chat completion body. */
export function completionBody(id: string, created: number, model: string, a: Answer): unknown {
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: a.reply, ...(a.reasoning ? { reasoning_content: a.reasoning } : {}) },
        finish_reason: a.finish,
      },
    ],
    usage: a.usage,
  };
}

/** The server-sent events of a streamed answer, `data: [DONE]` last. */
export function streamEvents(id: string, created: number, model: string, a: Answer, includeUsage: boolean): string[] {
  const chunk = (choices: unknown[], usage?: unknown): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...(includeUsage ? { usage: usage ?? null } : {}) })}\n\n`;
  const events = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])];
  if (a.reasoning) events.push(chunk([{ index: 0, delta: { reasoning_content: a.reasoning }, finish_reason: null }]));
  for (let i = 0; i < a.reply.length; i += STREAM_PIECE)
    events.push(chunk([{ index: 0, delta: { content: a.reply.slice(i, i + STREAM_PIECE) }, finish_reason: null }]));
  events.push(chunk([{ index: 0, delta: {}, finish_reason: a.finish }]));
  // As OpenAI sends it: with include_usage, one more chunk with no choices and the usage.
  if (includeUsage) events.push(chunk([], a.usage));
  events.push('data: [DONE]\n\n');
  return events;
}
