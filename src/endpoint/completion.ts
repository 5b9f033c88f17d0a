/**
 * Reading a chat completion body: what `bas eval` gets from the SDK and what a batch engine
 * writes into its output file. No SDK here, so reading batch output loads none.
 */

/** Token counts as the endpoint reported them. */
interface Usage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  /** `completion_tokens_details.reasoning_tokens`: the part of the completion spent reasoning. */
  reasoning_tokens?: number | null;
}

/** A reply worth scoring. */
export interface Completion {
  text: string;
  finish_reason: string | null;
  usage: Usage | null;
  /** True when the reply's rate-limit headers said a budget is used up: the run slows down. */
  budget_spent?: boolean;
  /** Gives the reply's memory back to the budget for replies (reply-budget.ts) once it is recorded. */
  release?: () => void;
}

/** The endpoint answered 200 with something that is not a usable completion. */
export class MalformedResponseError extends Error {
  override name = 'MalformedResponseError';
}

/**
 * The model reasoned (a `reasoning_content` or `reasoning` field) but left the content empty:
 * usually the token limit ran out while it was still thinking.
 */
export class ReasoningOnlyError extends MalformedResponseError {
  override name = 'ReasoningOnlyError';
}

function count(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** The reasoning text a reply carries, under either name servers use for it. */
function reasoningOf(message: Record<string, unknown> | undefined): string {
  for (const key of ['reasoning_content', 'reasoning']) {
    const v = message?.[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return '';
}

/**
 * Checks the shape of a chat completion by hand: compatible servers return all sorts, and
 * the SDK passes the parsed body through unchecked (or a string when it was not JSON).
 */
export function readCompletion(response: unknown): Completion {
  if (typeof response !== 'object' || response === null || Array.isArray(response)) {
    const seen = typeof response === 'string' ? `: ${JSON.stringify(response.slice(0, 80))}` : '';
    throw new MalformedResponseError(`the body is not a JSON object${seen}`);
  }
  const r = response as { choices?: unknown; usage?: unknown };
  if (!Array.isArray(r.choices) || r.choices.length === 0)
    throw new MalformedResponseError('no choices in the response');
  const choice = r.choices[0] as {
    message?: { content?: unknown; refusal?: unknown; [k: string]: unknown };
    finish_reason?: unknown;
  } | null;
  const finish = typeof choice?.finish_reason === 'string' ? choice.finish_reason : null;
  const content = choice?.message?.content;
  if (typeof content !== 'string' || content.trim() === '') {
    const reasoning = reasoningOf(choice?.message);
    if (reasoning) {
      const cut =
        finish === 'length'
          ? ' (finish_reason "length": the token limit ran out while it was reasoning; raise --max-tokens or lower --reasoning-effort)'
          : '';
      throw new ReasoningOnlyError(`the reply has ${reasoning.length} characters of reasoning but no content${cut}`);
    }
    const why =
      typeof choice?.message?.refusal === 'string' && choice.message.refusal
        ? `the model refused: ${choice.message.refusal.slice(0, 200)}`
        : finish === 'length'
          ? 'empty content (finish_reason "length": the token limit ran out before any reply)'
          : 'empty content';
    throw new MalformedResponseError(why);
  }
  const u = r.usage as Record<string, unknown> | null | undefined;
  let usage: Usage | null = null;
  if (u && typeof u === 'object') {
    usage = {
      prompt_tokens: count(u.prompt_tokens),
      completion_tokens: count(u.completion_tokens),
      total_tokens: count(u.total_tokens),
    };
    // Kept only where reported, so records of endpoints that do not reason stay as they were.
    const reasoning = count(
      (u.completion_tokens_details as Record<string, unknown> | null | undefined)?.reasoning_tokens,
    );
    if (reasoning !== null) usage.reasoning_tokens = reasoning;
  }
  return { text: content, finish_reason: finish, usage };
}
