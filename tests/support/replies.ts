/**
 * Replies a policy in training might send for a task: the four built-in policies' and hostile
 * ones (broken tags, fences, repeated blocks, huge runs, prototype keys, near-miss figures),
 * for tests that check the reward server grades exactly as `bas score` does.
 */
import { POLICY_NAMES, runPolicy } from '../../src/task/policies.js';
import type { Task } from '../../src/task/types.js';

const KB = 1 << 10;
const fill = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length));

/** Variants of a well-formed answer that a parser must not be fooled or stalled by. */
function hostileReplies(oracle: string, i: number): string[] {
  const open = oracle.indexOf('<answer>');
  const block = oracle.slice(open);
  const json = block.slice('<answer>'.length, -'</answer>'.length);
  const obj = JSON.parse(json) as Record<string, unknown>;
  const withFaults = (faults: unknown) => `<answer>${JSON.stringify({ ...obj, faults })}</answer>`;
  const all = [
    '',
    'I cannot do this.',
    block.toUpperCase(),
    block.slice(0, -1),
    `<answer>\`\`\`json\n${json}\n\`\`\`</answer>`,
    `<answer>\`\`\`\n${json}${fill(' \t', 32 * KB)}\`\`\`</answer>`,
    `${block}\n${withFaults({})}`,
    `${withFaults({})} and then ${block}`,
    `<answer>${block}`,
    `${fill('<answer>', 16 * KB)}${json}</answer>`,
    `<answer>${json}${fill('</answer>', 16 * KB)}`,
    fill('<answer</answer <answer>x</answe', 32 * KB),
    `<answer>${'['.repeat(8 * KB)}${']'.repeat(8 * KB)}</answer>`,
    `<answer>${'{"a":'.repeat(2 * KB)}1${'}'.repeat(2 * KB)}</answer>`,
    // Written as text: an object literal's __proto__ would set the prototype, not a key.
    `<answer>${json.replace(/"faults":\{.*\}\}$/, '"faults":{"__proto__":["duplicate_invoice"],"constructor":"outside_period","toString":[]}}')}</answer>`,
    withFaults(['gst_miscalculated']),
    withFaults(null),
    withFaults({ T01: [1, 2] }),
    `<answer>${JSON.stringify({ ...obj, G1: `$${String(obj.G1)}`, '1A': ` ${String(obj['1A'])} ` })}</answer>`,
    `<answer>${JSON.stringify({ ...obj, G1: Number(obj.G1), net: `${String(obj.net)}1` })}</answer>`,
    `<answer>${JSON.stringify({ ...obj, G1: `1,${String(obj.G1)}` })}</answer>`,
    `<answer>{"G1": "${fill('9', 8 * KB)}", "faults": {}}</answer>`,
    `<answer>${JSON.stringify({ ...obj, faults: Object.fromEntries(Object.entries(obj.faults as object).map(([k, v]) => [` ${k} `, v])) })}</answer>`,
    `${fill(' ', 64 * KB)}${block}`,
    `<answer>${json.replace('"faults"', '"Faults"')}</answer>`,
  ];
  // A few per task, varied by task, so a few thousand replies cover every kind several times.
  return [all[i % all.length]!, all[(i * 7 + 3) % all.length]!, all[(i * 13 + 5) % all.length]!];
}

/** The replies graded for `task`: each built-in policy's, then three hostile ones. */
export function repliesFor(task: Task): string[] {
  const policies = POLICY_NAMES.map((name) => runPolicy(name, task.prompt));
  return [...policies, ...hostileReplies(policies[0]!, task.index)];
}

/** The prompt as a ChatML template (Qwen and others) renders it, ready for the assistant's turn. */
export function chatml(messages: ReadonlyArray<{ role: string; content: string }>): string {
  return `${messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('')}<|im_start|>assistant\n`;
}

/** One sample a trainer grades: the dataset row's messages and label, and the policy's reply. */
export interface TrainerSample {
  prompt: ReadonlyArray<{ role: string; content: string }>;
  label: string;
  reply: string;
}

/**
 * The body OpenRLHF posts to a remote reward model (`/get_reward`): each prompt rendered by the
 * chat template, the query that prompt with the sampled reply and the end-of-turn token
 * appended, and the label from the dataset.
 */
export function openrlhfBody(samples: readonly TrainerSample[]): {
  query: string[];
  prompts: string[];
  labels: string[];
} {
  const prompts = samples.map((s) => chatml(s.prompt));
  return {
    query: samples.map((s, k) => `${prompts[k]}${s.reply}<|im_end|>`),
    prompts,
    labels: samples.map((s) => s.label),
  };
}
