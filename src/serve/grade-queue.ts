/**
 * Fair grading for the reward server: each request's items go to a lane (a grading thread, or
 * the main thread) by a hash of their label, as pieces of bounded work, and each lane takes
 * one piece at a time from its requests in turn. A batch that asks for a great deal of work
 * then delays another request by about one piece per lane, not by the whole batch.
 */
import { RequestError } from '../errors/index.js';
import { parseLabel } from '../task/label.js';
import type { Scores } from '../task/types.js';

/** Grades one piece: the scores of each (label, response) pair, in order. */
export type Lane = (labels: string[], responses: string[]) => Promise<Scores[]>;

/**
 * Ledger rows in one piece at most (one larger label is a piece of its own): about 50 ms of
 * key generation on one core, so a lane comes back to its other requests that often.
 */
const PIECE_ROWS = 10_000;
/** Items in one piece at most: grading a long reply costs time too, with no rows to show for it. */
const PIECE_ITEMS = 256;

interface Piece {
  at: number[];
  labels: string[];
  responses: string[];
}

/** One request's pieces for one lane. */
interface Job {
  pieces: Piece[];
  next: number;
  put(piece: Piece, scores: Scores[]): void;
  failed(err: Error): void;
  /** Set once a piece of the request failed: its other pieces are dropped. */
  dead: boolean;
}

interface LaneState {
  run: Lane;
  queue: Job[];
  busy: boolean;
}

/** FNV-1a over the label's UTF-16 units: cheap, and the same label always lands in one lane. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The rows a label's ledger has (0 for a label that does not read: it was checked before). */
export function labelRows(label: string): number {
  const parsed = parseLabel(label);
  return parsed.ok ? parsed.label.config.num_transactions : 0;
}

/** Splits one lane's share of a batch into pieces of bounded rows and items; a label's rows count once a piece. */
function pieces(at: number[], labels: readonly string[], responses: readonly string[]): Piece[] {
  const out: Piece[] = [];
  let piece: Piece | null = null;
  let rows = 0;
  let seen = new Set<string>();
  for (const i of at) {
    const label = labels[i]!;
    const more = seen.has(label) ? 0 : labelRows(label);
    if (!piece || piece.at.length >= PIECE_ITEMS || (rows + more > PIECE_ROWS && piece.at.length > 0)) {
      piece = { at: [], labels: [], responses: [] };
      out.push(piece);
      rows = 0;
      seen = new Set();
    }
    if (!seen.has(label)) {
      seen.add(label);
      rows += labelRows(label);
    }
    piece.at.push(i);
    piece.labels.push(label);
    piece.responses.push(responses[i]!);
  }
  return out;
}

/** Lanes that take the pieces of every request in turn. */
export class GradeQueue {
  private readonly lanes: LaneState[];

  constructor(lanes: Lane[]) {
    this.lanes = lanes.map((run) => ({ run, queue: [], busy: false }));
  }

  /** The scores of each (label, response) pair, in order; every label has been checked already. */
  grade(labels: readonly string[], responses: readonly string[]): Promise<Scores[]> {
    const out = new Array<Scores>(labels.length);
    const shares = this.lanes.map(() => [] as number[]);
    labels.forEach((label, i) => shares[hash(label) % shares.length]!.push(i));
    const jobs: Job[] = [];
    return new Promise<Scores[]>((resolve, reject) => {
      let left = 0;
      shares.forEach((at, k) => {
        if (at.length === 0) return;
        const job: Job = {
          pieces: pieces(at, labels, responses),
          next: 0,
          dead: false,
          put: (piece, scores) => {
            piece.at.forEach((i, j) => (out[i] = scores[j]!));
            if ((left -= piece.at.length) === 0) resolve(out);
          },
          failed: (err) => {
            for (const j of jobs) j.dead = true;
            reject(err);
          },
        };
        left += at.length;
        jobs.push(job);
        this.lanes[k]!.queue.push(job);
      });
      if (left === 0) return resolve(out);
      for (const lane of this.lanes) this.pump(lane);
    });
  }

  /**
   * Starts the lane's next piece, from the request at the head of its queue. That request
   * goes back to the tail once the piece is done, behind any request that came meanwhile.
   */
  private pump(lane: LaneState): void {
    if (lane.busy) return;
    let job = lane.queue.shift();
    while (job?.dead) job = lane.queue.shift();
    if (!job) return;
    const done = job;
    const piece = done.pieces[done.next++]!;
    lane.busy = true;
    lane
      .run(piece.labels, piece.responses)
      .then(
        (scores) => done.dead || done.put(piece, scores),
        (err: unknown) => done.dead || done.failed(err instanceof Error ? err : new Error(String(err))),
      )
      .finally(() => {
        lane.busy = false;
        if (!done.dead && done.next < done.pieces.length) lane.queue.push(done);
        this.pump(lane);
      });
  }
}

/**
 * The ledger rows a server generates for the requests under way: one request may ask for at
 * most `perRequest` (413 past it: its batch is too large to ever pass), and all together for
 * `ROWS_AT_ONCE` times that (503 past it: the server is busy, come back).
 */
export class RowBudget {
  private taken = 0;

  constructor(readonly perRequest: number) {}

  /** Rows taken by requests under way. */
  get inUse(): number {
    return this.taken;
  }

  /** Takes `rows` for a request, or throws the RequestError that refuses it. */
  take(rows: number): void {
    if (rows > this.perRequest)
      throw new RequestError(
        413,
        `the batch needs ${rows} ledger rows generated (the rows of its different labels added up), more than the ${this.perRequest} a request may ask for (--max-rows): split it`,
      );
    const most = ROWS_AT_ONCE * this.perRequest;
    if (this.taken + rows > most)
      throw new RequestError(
        503,
        `the server is already generating ${this.taken} ledger rows for other requests, and takes at most ${most} at once (${ROWS_AT_ONCE} x --max-rows): try again shortly`,
      );
    this.taken += rows;
  }

  /** Gives back what `take` took. */
  give(rows: number): void {
    this.taken -= rows;
  }
}

/** All requests under way may need this many times --max-rows. */
const ROWS_AT_ONCE = 4;
