/** The names of the reference policies (policies.ts), apart so that flags can list them without loading the rules. */
export const POLICY_NAMES = ['oracle', 'raw-sums', 'blanket', 'silent', 'slips'] as const;

/**
 * `share:P`, the scripted policy whose true mean reward is known: right (reward 1) on a share
 * P of the tasks, chosen by a hash of the task, and wrong (reward 0) on the rest. P is a
 * decimal from 0 to 1 with at most 6 places. `share:P:K` (K a whole number from 1 to 999)
 * salts that hash with K: two policies of different K are right on independent sets of tasks,
 * as two real models disagree both ways; of one K (none is K 0) the sets are nested.
 */
const SHARE = /^share:(0(\.\d{1,6})?|1(\.0{1,6})?|\.\d{1,6})(:[1-9]\d{0,2})?$/;

export type PolicyName = (typeof POLICY_NAMES)[number] | `share:${string}`;

export function isPolicyName(name: string): name is PolicyName {
  return (POLICY_NAMES as readonly string[]).includes(name) || SHARE.test(name);
}

/** The share P and the salt K (0 when not given) of `share:P[:K]`, or null for any other policy. */
export function shareOf(name: PolicyName): { share: number; salt: number } | null {
  if (!name.startsWith('share:')) return null;
  const [p, k] = name.slice('share:'.length).split(':');
  return { share: Number(p), salt: k === undefined ? 0 : Number(k) };
}

/** How help and messages list the policies. */
export const POLICY_LIST = `${POLICY_NAMES.join(', ')}, share:P[:K]`;
