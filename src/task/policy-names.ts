/** The names of the reference policies (policies.ts), apart so that flags can list them without loading the rules. */
export const POLICY_NAMES = ['oracle', 'raw-sums', 'blanket', 'silent', 'slips'] as const;

/**
 * `share:P`, the scripted policy whose true mean reward is known: right (reward 1) on a share
 * P of the tasks, chosen by a hash of the task, and wrong (reward 0) on the rest. P is a
 * decimal from 0 to 1 with at most 6 places.
 */
const SHARE = /^share:(0(\.\d{1,6})?|1(\.0{1,6})?|\.\d{1,6})$/;

export type PolicyName = (typeof POLICY_NAMES)[number] | `share:${string}`;

export function isPolicyName(name: string): name is PolicyName {
  return (POLICY_NAMES as readonly string[]).includes(name) || SHARE.test(name);
}

/** The share P of `share:P`, or null for any other policy. */
export function shareOf(name: PolicyName): number | null {
  return name.startsWith('share:') ? Number(name.slice('share:'.length)) : null;
}

/** How help and messages list the policies. */
export const POLICY_LIST = `${POLICY_NAMES.join(', ')}, share:P`;
