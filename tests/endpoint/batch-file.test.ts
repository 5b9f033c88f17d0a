import { describe, expect, it } from 'vitest';
import {
  batchRequestLines,
  customId,
  isBatchLine,
  parseCustomId,
  readBatchResult,
} from '../../src/endpoint/batch-file.js';
import { generateTask } from '../../src/task/generate.js';

const ok = (content: unknown, extra: Record<string, unknown> = {}) => ({
  id: 'batch_req_1',
  custom_id: 'task-3-r1',
  response: {
    status_code: 200,
    request_id: 'r',
    body: {
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
      ...extra,
    },
  },
  error: null,
});

describe('batch files', () => {
  it('custom ids name the task and the rollout, and read back', () => {
    expect(customId(12, 3)).toBe('task-12-r3');
    expect(parseCustomId('task-12-r3')).toEqual({ index: 12, rollout: 3 });
    for (const bad of ['task-1', 'x-1-r0', 'task--1-r0', 'task-1-r0 ']) expect(parseCustomId(bad)).toBeNull();
  });

  it('writes one chat completion request per task and rollout', () => {
    const task = generateTask({ num_transactions: 5, fault_rate: 0.5, seed: 1 }, 4);
    const lines = batchRequestLines(task, { fields: { model: 'm', temperature: 0 }, rollouts: 2 })
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toEqual({
      custom_id: 'task-4-r1',
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'm', temperature: 0, messages: task.prompt },
    });
  });

  it('reads a successful result as a completion', () => {
    const r = readBatchResult(ok('<answer>{}</answer>'));
    expect(r).toMatchObject({ index: 3, rollout: 1, model: 'm', error: null });
    expect(r.completion).toEqual({
      text: '<answer>{}</answer>',
      finish_reason: 'stop',
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    });
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      'a 429',
      { response: { status_code: 429, body: { error: { message: 'slow down' } } } },
      'rate_limit',
      /HTTP 429: slow down/,
    ],
    ['a 500', { response: { status_code: 500, body: { error: { message: 'boom' } } } }, 'provider', /HTTP 500/],
    ['a 401', { response: { status_code: 401, body: {} } }, 'auth', /HTTP 401/],
    [
      'an expired request',
      { response: null, error: { code: 'batch_expired', message: 'not run in time' } },
      'provider',
      /batch_expired: not run in time/,
    ],
    [
      'an empty reply',
      { response: { status_code: 200, body: { choices: [{ message: { content: '' } }] } } },
      'malformed',
      /empty content/,
    ],
    ['no choices', { response: { status_code: 200, body: { choices: [] } } }, 'malformed', /no choices/],
    ['neither response nor error', { response: null, error: null }, 'malformed', /neither/],
  ])('turns %s into a typed error', (_name, over, type, message) => {
    const r = readBatchResult({ custom_id: 'task-0-r0', ...over });
    expect(r.completion).toBeNull();
    expect(r.error?.type).toBe(type);
    expect(r.error?.message).toMatch(message);
  });

  it("keeps an unusable reply's usage: the batch was billed for it", () => {
    const usage = {
      prompt_tokens: 900,
      completion_tokens: 4096,
      completion_tokens_details: { reasoning_tokens: 4096 },
    };
    const r = readBatchResult({
      custom_id: 'task-0-r0',
      response: {
        status_code: 200,
        body: { choices: [{ message: { content: '' }, finish_reason: 'length' }], usage },
      },
    });
    expect(r.error?.type).toBe('malformed');
    expect(r.usage).toEqual({
      prompt_tokens: 900,
      completion_tokens: 4096,
      total_tokens: 4996,
      reasoning_tokens: 4096,
    });
  });

  it('refuses a line that is not a batch result', () => {
    expect(() => readBatchResult([])).toThrow(/must be an object/);
    expect(() => readBatchResult({ response: {} })).toThrow(/custom_id/);
    expect(() => readBatchResult({ custom_id: 'req-1' })).toThrow(/task-<index>-r<rollout>/);
    expect(isBatchLine({ custom_id: 'x' })).toBe(true);
    expect(isBatchLine({ index: 1, reply: '' })).toBe(false);
  });
});
