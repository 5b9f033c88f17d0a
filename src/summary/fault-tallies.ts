/**
 * The summary's counts of fault codes and of the causes of wrong figures: per code the pairs
 * claimed rightly (tp), wrongly (fp) and missed (fn), pooled over completed rollouts; claimed
 * codes that are none of the five; and why each wrong BAS and each wrong label is wrong, as
 * its own faults tell (task/implied.ts).
 */
import { BAS_LABELS, FAULT_CODES, type BasLabel } from '../task/types.js';
import { pooledFaults } from './aggregate.js';
import { recordedNumber, type CauseCounts, type Summary, type SummaryRecord } from './summary.js';

const CAUSES = ['audit', 'arithmetic', 'both'] as const;

type Detail = NonNullable<SummaryRecord['detail']>;

/** Fault codes and causes, counted as completed rollouts come. */
export class FaultTallies {
  /** tp, fp and fn of each code, in FAULT_CODES order. */
  private readonly codeCounts = new Float64Array(3 * FAULT_CODES.length);
  private unknownCodes = 0;
  /** Wrong BAS by cause, then each label's wrong figures by cause (CAUSES order). */
  private readonly causeCounts = new Float64Array(CAUSES.length * (1 + BAS_LABELS.length));

  /** Adds the fault codes of a completed rollout. */
  addCodes(detail: Detail): void {
    // Plain loops here, not forEach over fresh arrays: this runs once per record of every report.
    const codes = detail.codes;
    if (codes)
      for (let i = 0; i < FAULT_CODES.length; i++) {
        const pc = codes[FAULT_CODES[i]!];
        if (!pc) continue;
        const tp = recordedNumber(pc.tp);
        if (tp === tp) this.codeCounts[3 * i]! += tp;
        const fp = recordedNumber(pc.fp);
        if (fp === fp) this.codeCounts[3 * i + 1]! += fp;
        const fn = recordedNumber(pc.fn);
        if (fn === fn) this.codeCounts[3 * i + 2]! += fn;
      }
    const unknown = recordedNumber(detail.unknown_codes);
    if (unknown === unknown) this.unknownCodes += unknown;
  }

  /** Adds the causes of a completed rollout's wrong BAS and labels (its record holds the split). */
  addCauses(c: NonNullable<Detail['consistency']>): void {
    this.countCause(0, c.bas_error);
    for (let i = 0; i < BAS_LABELS.length; i++) this.countCause(1 + i, c.labels?.[BAS_LABELS[i]!]);
  }

  /** Counts a cause (one of CAUSES; anything else, a right figure included, counts nothing) in row `at`. */
  private countCause(at: number, cause: unknown): void {
    const i = CAUSES.indexOf(cause as (typeof CAUSES)[number]);
    if (i >= 0) this.causeCounts[CAUSES.length * at + i]!++;
  }

  /** Row `at` of the cause counts. */
  private causes(at: number): CauseCounts {
    const [audit, arithmetic, both] = this.causeCounts.subarray(CAUSES.length * at, CAUSES.length * (at + 1));
    return { audit: audit!, arithmetic: arithmetic!, both: both! };
  }

  /** The summary's `codes`, `unknown_codes` and `faults_pooled`, in that order. */
  codeFigures(): Pick<Summary, 'codes' | 'unknown_codes' | 'faults_pooled'> {
    const codes = {} as Summary['codes'];
    FAULT_CODES.forEach((code, i) => {
      const [tp, fp, fn] = [this.codeCounts[3 * i]!, this.codeCounts[3 * i + 1]!, this.codeCounts[3 * i + 2]!];
      codes[code] = { tp, fp, fn, precision: tp + fp ? tp / (tp + fp) : null, recall: tp + fn ? tp / (tp + fn) : null };
    });
    return {
      codes,
      unknown_codes: this.unknownCodes,
      faults_pooled: pooledFaults(Object.values(codes), this.unknownCodes),
    };
  }

  /** The consistency's `bas_errors` and `labels`: each wrong figure by cause. */
  causeFigures(): Pick<Summary['consistency'], 'bas_errors' | 'labels'> {
    return {
      bas_errors: this.causes(0),
      labels: Object.fromEntries(BAS_LABELS.map((l, i) => [l, this.causes(1 + i)])) as Record<BasLabel, CauseCounts>,
    };
  }
}
