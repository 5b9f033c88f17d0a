/**
 * sweep.json: a sweep folder's plan, the points and the eval flags they run with (never a key:
 * flags name the key's variable, not the key). Written when a sweep starts, read back by
 * `bas sweep --resume`, which takes it as a file from elsewhere: checked in shape here, and its
 * endpoint checked by the sweep command before any request.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { FileTooLargeError, readSmallFile } from '../io/jsonl.js';
import { fileSink, withSink } from '../io/output.js';
import { SWEEP_FILE } from './files.js';

/** Most points a sweep may have. */
export const MAX_POINTS = 100;

/** A plan lists at most a few hundred points; far past that it is not one bas wrote. */
const MAX_PLAN_BYTES = 10_000_000;

/** What sweep.json holds. `flags` are eval's flags as commander gave them (strings and switches). */
export interface SweepPlan {
  kind: 'bas-sweep';
  created_at: string;
  model: string | null;
  points: Array<{ num_transactions: number; fault_rate: number | null; folder: string }>;
  /** The eval flags every point runs with (the knob's own flags left out). */
  flags: Record<string, string | boolean | undefined>;
  /** `@FILE` words of a TOML configuration, as given. */
  words: string[];
}

/** The path of a sweep folder's plan (for refusing an output over it). */
export function sweepFile(dir: string): string {
  return join(dir, SWEEP_FILE);
}

/** Writes the plan into `dir`, creating the folder. */
export async function writeSweepPlan(dir: string, plan: SweepPlan): Promise<void> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new ConfigError(
      `--output: cannot create the sweep folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  await withSink(fileSink(sweepFile(dir), '--output'), async (sink) =>
    sink.write(JSON.stringify(plan, null, 2) + '\n'),
  );
}

/** Takes a plan back (a sweep whose first point failed before scoring anything). */
export function removeSweepPlan(dir: string): void {
  rmSync(sweepFile(dir), { force: true });
}

/** Reads and checks the plan of a sweep folder for `--resume`. */
export function readSweepPlan(dir: string): SweepPlan {
  const file = sweepFile(dir);
  if (!existsSync(file)) throw new ConfigError(`--resume: ${dir} is not a sweep folder (no ${SWEEP_FILE})`);
  let plan: SweepPlan;
  try {
    plan = JSON.parse(readSmallFile(file, MAX_PLAN_BYTES)) as SweepPlan;
  } catch (err) {
    if (err instanceof FileTooLargeError)
      throw new ConfigError(`--resume: ${file} is larger than ${MAX_PLAN_BYTES} bytes: not a bas sweep plan`);
    throw new ConfigError(`--resume: ${file} is not valid JSON (${(err as Error).message.slice(0, 120)})`);
  }
  const ok =
    plan?.kind === 'bas-sweep' &&
    Array.isArray(plan.points) &&
    plan.points.length <= MAX_POINTS &&
    plan.points.every(
      (p) =>
        typeof p?.num_transactions === 'number' && typeof p.folder === 'string' && /^rows-[0-9a-z.-]+$/.test(p.folder),
    ) &&
    typeof plan.flags === 'object' &&
    plan.flags !== null &&
    !Array.isArray(plan.flags) &&
    Object.values(plan.flags).every((v) => typeof v === 'string' || typeof v === 'boolean') &&
    Array.isArray(plan.words) &&
    plan.words.every((w) => typeof w === 'string');
  if (!ok) throw new ConfigError(`--resume: ${file} is not a bas sweep plan (damaged or written by something else)`);
  return plan;
}
