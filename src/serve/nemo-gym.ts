/**
 * NeMo Gym's resources-server protocol for `bas reward-server`: `POST /seed_session` and
 * `POST /verify`, as NeMo Gym 0.7's `SimpleResourcesServer` answers them and its agents (and
 * verifiers' NeMo Gym taskset) call them. /verify gets the task row (here with the `label` that
 * `bas gen --format dataset` writes) plus the model's `response`, an OpenAI Responses object;
 * it answers with the request echoed (NeMo Gym's `BaseVerifyResponse` extends the request, and
 * its clients read `responses_create_params` and `response` back), the `reward`, and one number
 * per part and metric, which NeMo Gym aggregates and logs as metrics.
 */
import { LabelError, RequestError } from '../errors/index.js';
import type { Scores } from '../task/types.js';
import { labelRows } from './grade-queue.js';
import type { RewardBatch } from './reward-grade.js';
import { checkLabel } from './task-keys.js';

function objectOf(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * The model's text in a Responses object: the `output_text` parts of its `message` items, in
 * order, joined (as NeMo Gym's rule-based servers read it). Reasoning and tool-call items are
 * not the answer; a response with no message text is graded as an empty reply (reward 0).
 */
export function responseText(response: unknown): string {
  const output = objectOf(response)?.output;
  if (!Array.isArray(output))
    throw new RequestError(400, '"response" must be an OpenAI Responses object with an "output" list');
  let text = '';
  for (const item of output) {
    const message = objectOf(item);
    if (message?.type !== 'message' || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      const p = objectOf(part);
      if (p?.type === 'output_text' && typeof p.text === 'string') text += p.text;
    }
  }
  return text;
}

/** Reads a /verify body: the task row's `label` and the model's `response`, as a batch of one. */
export function readVerifyRequest(body: unknown): { batch: RewardBatch; row: Record<string, unknown> } {
  const row = objectOf(body);
  if (!row) throw new RequestError(400, 'the body must be a JSON object: the task row plus "response"');
  try {
    checkLabel(row.label);
  } catch (err) {
    if (err instanceof LabelError)
      throw new RequestError(err.status, `"label" (the task row's, from bas gen --format dataset): ${err.message}`);
    throw err;
  }
  const label = row.label as string;
  const response = responseText(row.response);
  return { batch: { labels: [label], responses: [response], sources: [], rows: labelRows(label) }, row };
}

/** The answer to /verify: the request, then the reward and every part and metric as numbers. */
export function verifyAnswer(row: Record<string, unknown>, s: Scores): Record<string, unknown> {
  return { ...row, reward: s.reward, ...s.rewards, ...s.metrics };
}

/**
 * The answer to /seed_session. bas keeps no state per rollout, so there is nothing to seed:
 * an environment server's request (with `resources_session_id`) gets its id back, as NeMo
 * Gym's default does; an agent's (the task row) gets an empty object.
 */
export function seedSessionAnswer(body: unknown): Record<string, unknown> {
  const o = objectOf(body);
  if (!o)
    throw new RequestError(400, 'the body must be a JSON object (the task row, or {"resources_session_id", ...})');
  const id = o.resources_session_id;
  if (id === undefined) return {};
  if (typeof id !== 'string' || id.length === 0)
    throw new RequestError(400, '"resources_session_id" must be a non-empty string');
  return { resources_session_id: id };
}
