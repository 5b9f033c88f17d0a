/** The names of the reference policies (policies.ts), apart so that flags can list them without loading the rules. */
export const POLICY_NAMES = ['oracle', 'raw-sums', 'blanket', 'silent', 'slips'] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

export function isPolicyName(name: string): name is PolicyName {
  return (POLICY_NAMES as readonly string[]).includes(name);
}
