/**
 * The error budget of a finished run, one rule for `eval`, `sweep` and `score`: nothing was
 * measured when no rollout completed and some errored; the run is over budget when more than
 * `maxErrorRate` of its rollouts errored. Each command words its own exit-3 message.
 */
import type { Summary } from './summary.js';

export type BudgetVerdict = 'ok' | 'nothing-completed' | 'over-error-budget';

export function errorBudget(counts: Summary['counts'], maxErrorRate: number): BudgetVerdict {
  const { completed, errored, rollouts } = counts;
  if (completed === 0 && errored > 0) return 'nothing-completed';
  if (rollouts > 0 && errored / rollouts > maxErrorRate) return 'over-error-budget';
  return 'ok';
}
