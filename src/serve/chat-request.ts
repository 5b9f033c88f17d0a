/**
 * The check of a chat request that `bas serve` runs before any work: a client may send any
 * JSON at all, and what is wrong with it is answered with a 400 naming it, never a crash.
 */
import type { ChatMessage } from '../task/types.js';

/** A chat request, checked. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  includeUsage: boolean;
  /** The request's cap on completion tokens (`max_completion_tokens`, else `max_tokens`), or null. */
  limit: number | null;
  /** The `reasoning_effort` asked for, or null when none was sent. */
  effort: string | null;
}

function tokenLimit(body: { max_tokens?: unknown; max_completion_tokens?: unknown }): number | null {
  for (const v of [body.max_completion_tokens, body.max_tokens]) {
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  }
  return null;
}

/** The most messages one request may carry; a prompt of bas has two. */
const MAX_MESSAGES = 10_000;

/**
 * Checks the shape of a chat request; returns it, or what is wrong with it (one line, for a
 * 400). Content may be a string or a list of text parts, or null in an assistant's message,
 * as the API allows.
 */
export function checkChatRequest(body: unknown): ChatRequest | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the request body must be a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') return 'the request needs "model", a non-empty string';
  if (!Array.isArray(b.messages) || b.messages.length === 0)
    return 'the request needs "messages", a non-empty list of messages';
  if (b.messages.length > MAX_MESSAGES) return `"messages" holds more than ${MAX_MESSAGES} messages`;
  const messages: ChatMessage[] = [];
  for (let i = 0; i < b.messages.length; i++) {
    const m = b.messages[i] as unknown;
    if (typeof m !== 'object' || m === null || Array.isArray(m))
      return `messages[${i}] must be an object with "role" and "content"`;
    const { role, content } = m as Record<string, unknown>;
    if (typeof role !== 'string') return `messages[${i}].role must be a string`;
    let text: string;
    if (typeof content === 'string') text = content;
    else if (content === null || content === undefined) {
      // As OpenAI has it: only an assistant's turn (one that called tools) may have no content.
      if (role !== 'assistant')
        return `messages[${i}].content must be a string or a list of parts for a ${role} message, got ${content === null ? 'null' : 'none'}`;
      text = '';
    } else if (Array.isArray(content)) {
      const parts: string[] = [];
      for (let j = 0; j < content.length; j++) {
        const part = content[j] as { type?: unknown; text?: unknown } | null;
        if (typeof part !== 'object' || part === null || typeof part.type !== 'string')
          return `messages[${i}].content[${j}] must be an object with "type"`;
        if (part.type === 'text') {
          if (typeof part.text !== 'string') return `messages[${i}].content[${j}].text must be a string`;
          parts.push(part.text);
        }
      }
      text = parts.join('');
    } else return `messages[${i}].content must be a string, a list of parts, or null (in an assistant's message)`;
    messages.push({ role: role as ChatMessage['role'], content: text });
  }
  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== 'boolean') return '"stream" must be a boolean';
  const so = b.stream_options;
  if (so !== undefined && so !== null && (typeof so !== 'object' || Array.isArray(so)))
    return '"stream_options" must be an object';
  const includeUsage = (so as { include_usage?: unknown } | null | undefined)?.include_usage === true;
  return {
    model: b.model,
    messages,
    stream: b.stream === true,
    includeUsage,
    limit: tokenLimit(b),
    effort: typeof b.reasoning_effort === 'string' ? b.reasoning_effort : null,
  };
}
