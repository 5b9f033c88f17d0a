/**
 * The per-rollout data the HTML page embeds for its task list and drill-down. Ledgers and
 * keys are not stored in a run, so each task is regenerated (deterministic in its config and
 * index) and each reply re-parsed with the task's own answer parser. The data is compact:
 * rows are arrays, codes are small integers, and a task is stored once however many
 * rollouts it has.
 */
import { parseAnswer } from '../../task/answer.js';
import { generateTask } from '../../task/generate.js';
import { formatCents } from '../../task/money.js';
import { BAS_LABELS, FAULT_CODES, type TaskConfig } from '../../task/types.js';
import { GENERATOR_VERSION } from '../../task/generate.js';
import type { Task } from '../../task/types.js';
import { taskDigest } from '../../runfile/task-digest.js';
import { runGenerator } from '../../runfile/versions.js';
import type { RunData } from '../read.js';
import type { RolloutRecord } from '../../runfile/record.js';
import { foldWinningRecords, runBounds } from '../../runfile/winners.js';
import { DrillSelection, SELECTION_LIMITS, type Selected } from './selection.js';
import { DRILL_LAYOUT, type DrillData, type RolloutData, type TaskData } from '../../display/drill.js';

/** Replies longer than this are cut in the page (the results file keeps them whole). */
const MAX_REPLY_CHARS = 20_000;

function configKey(c: TaskConfig): string {
  return `${c.num_transactions}/${c.fault_rate}/${c.seed}`;
}

function isConfig(c: unknown): c is TaskConfig {
  const v = c as TaskConfig | null;
  return (
    !!v && Number.isSafeInteger(v.num_transactions) && typeof v.fault_rate === 'number' && Number.isSafeInteger(v.seed)
  );
}

/** Interns repeated strings: the same text always gets the same number. */
class StringTable {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();
  id(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.list.push(s) - 1;
      this.ids.set(s, i);
    }
    return i;
  }
}

function taskData(t: Task, index: number, st: StringTable): TaskData {
  const faults: Record<string, number[]> = {};
  for (const [id, codes] of Object.entries(t.key.faults)) faults[id] = codes.map((c) => FAULT_CODES.indexOf(c));
  return {
    index,
    business: `${t.ledger.business.name} (${t.ledger.business.trade ? `${t.ledger.business.trade}, ` : ''}ABN ${t.ledger.business.abn})`,
    period: [t.ledger.period.start, t.ledger.period.end],
    rows: t.ledger.rows.map((r) => [
      r.id,
      r.date,
      st.id(r.type),
      st.id(r.counterparty),
      st.id(r.description),
      st.id(r.category),
      formatCents(r.amount),
      formatCents(r.gst),
      r.invoice,
      st.id(r.abn),
    ]),
    bas: [
      formatCents(t.key.bas.G1),
      formatCents(t.key.bas['1A']),
      formatCents(t.key.bas['1B']),
      formatCents(t.key.bas.net),
    ],
    faults,
  };
}

function shown(raw: unknown): string {
  if (raw === undefined) return '(missing)';
  return typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? String(raw));
}

function rolloutData(
  r: RolloutRecord,
  pos: number,
  task: TaskData | null,
  why: string[],
  noTask: string | null,
): RolloutData {
  const reply = typeof r.reply === 'string' ? r.reply : null;
  let figures: RolloutData[9] = null;
  let given: RolloutData[10] = null;
  let reason: string | null = null;
  if (reply !== null && !r.error) {
    const parsed = parseAnswer(reply);
    if (parsed.ok) {
      figures = BAS_LABELS.map((l, i) => {
        const f = parsed.answer.figures[l];
        const right = task !== null && f.cents !== null && formatCents(f.cents) === task.bas[i];
        return [shown(f.raw), right];
      });
      // Ids come from the reply: without a prototype, "__proto__" is an ordinary key.
      const claims = Object.create(null) as Record<string, string[]>;
      for (const [id, codes] of parsed.answer.faults) claims[id] = [...codes];
      given = claims;
    } else {
      reason = parsed.reason;
    }
  }
  return [
    pos,
    r.index,
    r.rollout ?? 0,
    r.error ? null : r.reward,
    r.error ? null : (r.rewards?.bas_correct ?? null),
    r.error ? null : (r.rewards?.fault_audit ?? null),
    r.error ? r.error.type : null,
    r.error ? String(r.error.message ?? '') : null,
    reply !== null && reply.length > MAX_REPLY_CHARS ? reply.slice(0, MAX_REPLY_CHARS) : reply,
    figures,
    given,
    reason,
    why,
    noTask,
  ];
}

/** Why a rollout's task is not shown beside it. */
const NOT_REBUILT = 'the task cannot be rebuilt (unknown configuration or generator)';
const GRADED_ELSEWHERE =
  'the task this reply was graded against is not the one the generator makes for its index (it came from a tasks file of its own), and the run folder keeps only its digest: see the tasks file given to bas score';
const GRADED_UNSAID =
  "this run was scored by a bas before 0.4.1 against a tasks file, and its folder does not say which task was graded: the generator's could differ";

/** Whether this bas's generator made the run's tasks (a run of another generator gets no ledgers). */
function ledgersRegenerable(data: Pick<RunData, 'run'>): boolean {
  // Unknown (a scored run of a task file that did not say) is not this generator either.
  return runGenerator(data.run) === GENERATOR_VERSION;
}

/** What the drill-down reads of a run: its run.json, task, folder and how many rollouts it holds. */
type DrillSource = Pick<RunData, 'run' | 'task' | 'dir'> & { summary: { counts: { rollouts: number } } };

/**
 * The tasks built so far and their interned text: one per page, or one shared by the runs of a
 * bundle, so runs over the same tasks hold each ledger once.
 */
export class TaskPool {
  readonly tasks: TaskData[] = [];
  readonly built = new Map<string, { pos: number; digest: string | null }>();
  readonly strings = new StringTable();
}

/** The page's data for the rollouts a selection chose: their tasks regenerated, their replies re-parsed. */
export function drillDataOf(data: DrillSource, chosen: Selected[], pool: TaskPool = new TaskPool()): DrillData {
  // Ledgers are regenerated only by the generator that made them: another one would show a
  // different ledger beside the replies. readRun adds the note saying so.
  const regenerate = ledgersRegenerable(data);
  const scored = data.run?.source === 'bas score';
  const { tasks, built, strings } = pool;
  const rollouts = chosen.map(({ record: r, reasons }) => {
    const config = !regenerate ? null : isConfig(r.config) ? r.config : data.task;
    let at = { pos: -1, digest: null as string | null };
    if (config) {
      const key = `${configKey(config)}#${r.index}`;
      at = built.get(key) ?? at;
      if (!built.has(key)) {
        try {
          const t = generateTask(config, r.index);
          at = { pos: tasks.push(taskData(t, r.index, strings)) - 1, digest: taskDigest(t) };
        } catch {
          // a configuration the generator refuses: show the reply without a ledger
        }
        built.set(key, at);
      }
    }
    // A scored run's task came from a file: the rebuilt one is shown only when it is the one
    // graded (same digest); a folder that does not say which task it graded shows none.
    const said = typeof r.task_digest === 'string' ? r.task_digest : null;
    let noTask: string | null = null;
    if (at.pos >= 0 && said !== null && said !== at.digest) noTask = GRADED_ELSEWHERE;
    else if (at.pos >= 0 && said === null && scored) noTask = GRADED_UNSAID;
    else if (at.pos < 0) noTask = NOT_REBUILT;
    const pos = noTask === null ? at.pos : -1;
    return rolloutData(r, pos, pos >= 0 ? tasks[pos]! : null, reasons, noTask);
  });
  return {
    layout: DRILL_LAYOUT,
    total_rollouts: data.summary.counts.rollouts,
    dir: data.dir,
    limits: { ...SELECTION_LIMITS },
    strings: strings.list,
    labels: BAS_LABELS,
    codes: FAULT_CODES,
    maxReplyChars: MAX_REPLY_CHARS,
    tasks,
    rollouts,
  };
}

/**
 * Reads the run's results again and builds the page's data for the default selection. `bas
 * report` chooses while it reads the file the first time (readRunFolding) instead.
 */
export async function buildDrillData(data: RunData, requested: Array<[number, number]> = []): Promise<DrillData> {
  const { fold } = await foldWinningRecords(data.resultsPath, () => new DrillSelection(requested), {
    bounds: runBounds(data.run),
    warn: () => {}, // the first read already warned about a torn last line
  });
  return drillDataOf(data, fold.selected());
}
