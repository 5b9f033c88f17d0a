/** The summary of a finite list of records, one per rollout: the tests' short way to a SummaryBuilder's result. */
import { SummaryBuilder } from '../../src/summary/summary-builder.js';
import type { Summary, SummaryRecord } from '../../src/summary/summary.js';

export function summarize(records: Iterable<SummaryRecord>): Summary {
  const b = new SummaryBuilder();
  for (const r of records) b.add(r);
  return b.result();
}
