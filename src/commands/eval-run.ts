/**
 * What `bas eval` and `bas sweep` say about one run: the line each notice gets on stderr, the
 * tables a finished run prints, and the error (with its exit code) its outcome ends the command
 * with. Its plan comes from src/api/eval-plan.ts.
 */
import { asClause } from '../io/outside-text.js';
import { BudgetError, ErrorRateError, FatalRunError, InterruptedError } from '../errors/index.js';
import { renderSummary } from '../report/tables.js';
import { renderEvalHeader, renderEvalCost, renderSequential } from '../report/eval-header.js';
import { costOf, costText } from '../report/cost.js';
import { provenanceOf } from '../report/provenance.js';
import type { Summary } from '../summary/summary.js';
import type { EvalEvent, EvalResult } from '../engine/events.js';
import type { RunPlan } from '../engine/run-eval.js';
import { resumeCommand } from '../settings/resume-command.js';
import { shellWord } from '../display/format.js';
import { redact } from '../io/secrets.js';
import { terminalText } from '../io/terminal-text.js';
import * as std from '../io/std.js';

type Notice<K extends EvalEvent['type']> = (e: Extract<EvalEvent, { type: K }>) => string | null;

/** The line each event with one gets on stderr (progress is drawn apart). */
const NOTICES: { [K in EvalEvent['type']]?: Notice<K> } = {
  'nothing-to-do': (e) =>
    e.marked === null
      ? null
      : `bas: ${e.dir} had every rollout recorded but was marked ${JSON.stringify(e.marked)}; it is now marked complete\n`,
  resuming: (e) => `bas: resuming ${e.dir}: ${e.pending} of ${e.total} rollouts to run\n`,
  restarted: (e) => `bas: ${e.dir} held a run that recorded no scored rollout; starting it again with these settings\n`,
  warning: (e) => `bas: warning: ${terminalText(redact(e.message))}\n`,
};

/** The line an event gets on stderr, or null (progress is drawn apart). */
export function evalNotice(e: EvalEvent): string | null {
  const notice = NOTICES[e.type] as Notice<typeof e.type> | undefined;
  return notice ? notice(e as never) : null;
}

/** What a finished eval prints on its standard output: the header, the tables and the cost, or JSON. */
export function renderEvalResult(r: EvalResult, plan: RunPlan, json: boolean): string {
  // The summary, with what it cost at the run's prices (errored rollouts' part apart), where a
  // sequential rule stopped it, and what it was measured with (model, endpoint, task settings,
  // sampling, versions), as reports give it. Not when or how long: a resumed run prints what an
  // uninterrupted one does.
  if (json) {
    const {
      started_at: _s,
      ended_at: _e,
      wall_time_s: _w,
      status: _st,
      ...provenance
    } = provenanceOf(r.info, plan.model, r.info.task);
    const sequential = r.sequential ? { sequential: r.sequential } : {};
    // This session's rate limiting, only when it met some: a run that met none prints what it always has.
    const pace = r.info.pace;
    const limited =
      pace && ((pace.rate_limited ?? 0) > 0 || (pace.rate_rps ?? null) !== null)
        ? { rate_limits: { refused: pace.rate_limited ?? 0, rps: pace.rate_rps ?? null } }
        : {};
    return `${JSON.stringify({ ...r.summary, cost: costOf(r.summary, {}, plan.prices), ...sequential, ...limited, provenance }, null, 2)}\n`;
  }
  // A resume with nothing left prints the summary alone, as it always has: nothing ran.
  if (r.outcome.kind === 'nothing-to-do') return `${renderSummary(r.summary, { title: `${plan.model} · ${r.dir}` })}\n`;
  // The time is over what this session recorded: a run stopped early did not run all it planned.
  const header = renderEvalHeader({ dir: r.dir, info: r.info, elapsedS: r.elapsed_s, ranHere: r.recorded_here });
  const sequential = r.sequential ? renderSequential(r.sequential, r.summary, plan.prices) : '';
  return `${header}\n${renderSummary(r.summary)}${renderEvalCost(r.summary, plan.prices)}${sequential}`;
}

/**
 * "; it used 15,552 tokens ($0.1016), 15,552 of them on errored rollouts", or nothing when
 * none were reported and none were in flight. Where the figures may be incomplete (requests
 * abandoned in flight, replies billed without usage), a lower bound said as one: "; it used at
 * least 15,552 tokens, at least $0.1016 (8 requests were in flight when the run stopped; up to
 * about $0.2718 more)".
 */
function spentSoFar(summary: Summary, plan: RunPlan): string {
  const t = summary.tokens;
  const c = costOf(summary, {}, plan.prices);
  // What was billed: prompt and completion (reasoning billed beyond completion_tokens included).
  const used = Math.max(t.total, t.prompt + t.completion);
  if (used === 0 && !c.lower_bound) return '';
  const lost = t.unscored.total > 0 ? `, ${t.unscored.total.toLocaleString('en-US')} of them on errored rollouts` : '';
  const tokens = used.toLocaleString('en-US');
  if (!c.lower_bound) {
    const usd = c.total_usd === null ? '' : ` ($${c.total_usd.toFixed(4)})`;
    return `; it used ${tokens} tokens${usd}${lost}`;
  }
  const text = costText(c);
  if (text !== null) return `; it used at least ${tokens} tokens${lost}, ${text}`;
  const flight = t.in_flight ?? { requests: 0, prompt: 0, completion: 0 };
  const unreported = t.unreported ?? { requests: 0, prompt: 0, completion: 0 };
  const worst =
    flight.completion === null ? null : flight.prompt + flight.completion + unreported.prompt + unreported.completion;
  const more =
    worst === null ? 'what they cost is unknown' : `up to about ${worst.toLocaleString('en-US')} more tokens`;
  return `; it used at least ${tokens} tokens${lost} (${c.incomplete}; ${more})`;
}

/** The error a run's outcome ends `bas eval` with (its exit code and its one line), or null for success. */
export function outcomeError(r: EvalResult, plan: RunPlan): Error | null {
  const { dir, outcome } = r;
  const resume = (): string => resumeCommand(dir, plan, std.env());
  const { errored, rollouts } = r.summary.counts;
  const top = r.summary.errors[0];
  const why = top?.messages[0] ? `; commonest: ${top.type}, "${top.messages[0].example}"` : '';
  switch (outcome.kind) {
    case 'ok':
    case 'nothing-to-do':
    case 'precision':
    case 'decided':
      // A stopping rule that found its answer: the run did what was asked.
      return null;
    case 'endpoint-stopped': {
      const how = outcome.restartable
        ? `no rollout was scored, so ${dir} can be started again: fix the cause and run bas eval --output ${shellWord(dir)} with the corrected settings`
        : `finished rollouts are kept in ${dir}; fix the cause and continue with ${resume()}`;
      return new FatalRunError(
        `${asClause(outcome.failure.message)}${spentSoFar(r.summary, plan)}; run stopped (${how})`,
      );
    }
    case 'interrupted': {
      const reason = outcome.reason instanceof InterruptedError ? outcome.reason : null;
      const after = outcome.complete
        ? `the run had finished: all ${r.total} rollouts are recorded in ${dir}, which is marked complete (bas report ${shellWord(dir)} shows them)`
        : `finished rollouts are kept in ${dir}: continue with ${resume()}`;
      return new InterruptedError(
        // What it spent comes before the resume command, so the command ends the line and runs as printed.
        `${reason?.message ?? 'interrupted'}${outcome.complete ? '' : spentSoFar(r.summary, plan)}; ${after}`,
        reason?.exitCode ?? 130,
      );
    }
    case 'budget':
      return new BudgetError(
        `run stopped: ${outcome.message}${spentSoFar(r.summary, plan)}; finished rollouts are kept in ${dir}: continue with a larger budget, ${resume()} --max-cost USD or --max-total-tokens N`,
      );
    case 'nothing-completed':
      return new ErrorRateError(
        `no rollout completed (${errored} errored${why}); ${resume()} re-runs them once the cause is fixed`,
      );
    case 'over-error-budget':
      return new ErrorRateError(
        `${errored} of ${rollouts} rollouts errored, more than --max-error-rate ${plan.limits.maxErrorRate} allows${why}; ${resume()} re-runs them`,
      );
  }
}
