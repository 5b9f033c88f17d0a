/**
 * The report of `bas check` for a terminal: what the probe learned (endpoint-check.ts), a few
 * lines, every piece of outside text already cleaned by the probe or cleaned here.
 */
import { outsideText } from '../io/outside-text.js';
import { grouped } from './completion.js';
import type { ProbeReport } from './endpoint-check.js';

type GradedReply = NonNullable<ProbeReport['graded']>;

/** "4,096 completion (4,000 reasoning, 96 content)", from what the endpoint reported. */
function tokenLine(g: GradedReply): string {
  if (g.completionTokens === null) return 'not reported';
  const split =
    g.reasoningTokens === null
      ? 'reasoning not reported'
      : `${grouped(g.reasoningTokens)} reasoning, ${grouped(g.contentTokens ?? 0)} content`;
  const prompt = g.promptTokens === null ? '' : `, ${grouped(g.promptTokens)} prompt`;
  return `${grouped(g.completionTokens)} completion (${split})${prompt}`;
}

/** The stream line of the report: the time to first token, or why there is none. */
function streamLine(s: NonNullable<ProbeReport['stream']>): string {
  if (s.streamed === false) return '  first token  not measured: the endpoint ignored stream and sent a whole reply';
  if (s.streamed === null) return '  first token  none: no reply came';
  return `  first token  ${s.ttftMs === null ? 'none: no content or reasoning came' : `${s.ttftMs} ms`} (streamed)`;
}

/** The report in a few lines, for a terminal. */
export function renderProbe(r: ProbeReport, header: string): string {
  const yes = (v: boolean | null, good: string, bad: string): string => (v === null ? 'not tested' : v ? good : bad);
  const sentText =
    Object.entries(r.sent)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ') || 'none besides model and messages';
  const params =
    r.paramsAccepted === false
      ? `refused${r.refusedParam ? `: ${r.refusedParam}` : ''} (sent ${sentText})`
      : yes(r.paramsAccepted, `accepted (${sentText})`, 'refused');
  const limits = Object.entries(r.rateLimits)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  const lines = [
    header,
    `  reachable    ${!r.reachable ? 'no' : r.status === null ? 'yes (no HTTP answer)' : `yes (HTTP ${r.status})`}`,
    `  key          ${yes(r.keyAccepted, 'accepted', 'refused')}`,
    `  model        ${yes(r.modelKnown, 'known', 'not known to this endpoint')}`,
    `  parameters   ${params}`,
    `  latency      ${Math.round(r.latencyMs)} ms`,
    ...(r.stream ? [streamLine(r.stream)] : []),
    `  rate limits  ${limits || 'no x-ratelimit-* headers'}`,
  ];
  if (r.message) lines.push(`  said         ${r.message}`);
  const g = r.graded;
  if (g) {
    lines.push(
      `  task         ${r.task.index} (the run's first)`,
      `  finish       ${g.finishReason === null ? 'not given' : outsideText(g.finishReason, 40)}`,
      `  tokens       ${tokenLine(g)}`,
      `  answer       ${g.parsed ? 'parsed' : `not parsed: ${outsideText(g.unparsed ?? '', 200)}`}`,
      `  reward       ${g.reward === null ? 'none (the rollout would error)' : g.reward.toFixed(3)}`,
    );
  }
  if (r.advice) lines.push(`  advice       ${r.advice}`);
  lines.push(`  result       ${r.ok ? 'ok' : 'FAILED'}`);
  return lines.join('\n');
}
