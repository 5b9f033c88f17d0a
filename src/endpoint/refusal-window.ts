/**
 * Whether a 429 is a sign of a limit or a refusal at random. A server with room to spare may
 * refuse a few percent of its requests whatever the load (a gateway's hiccup, a shard that is
 * busy for a moment); lowering the limit on each of them drove a run at `-c 64` that met 3% of
 * refusals at random down to 3 in flight, about 9 times slower than the same run with
 * `--no-adapt` (issue 36). A limit, whether on the rate or on requests in flight, refuses
 * together: every request past it, until the pace comes down. So a refusal counts as a limit's
 * only when the refusals among the last `window` requests sent make up at least 1 in SHARE of
 * them, or when three requests sent one after another were all refused (at 3% at random, about
 * one refusal in a thousand is such a run; a limit met at -c 8 with instant replies refuses
 * every request past it); a lone one costs its rollout a retry after the server's wait
 * (retry.ts) and nothing else. The window is twice the ceiling on requests in flight, and at least MIN_WINDOW: a
 * limit met by a whole wave shows at once, while refusals at random (3% at -c 64: about 4 in
 * the window of 128, where 16 are needed) seldom reach the share by chance.
 *
 * The price is paid by a limit that names nothing: one without rate-limit headers is met two
 * refusals later than before at least, and up to `window / SHARE - 1` later when its refusals
 * are spread among answers. The rate-limit headers (a budget named)
 * and a rate already being paced at are signs on their own (pace.ts).
 */

/** A refusal counts when at least 1 in SHARE of the requests of the window were refused. */
const SHARE = 8;
const MIN_WINDOW = 64;

export class RefusalWindow {
  private readonly window: number;
  /** The send numbers of the refusals among the last `window` requests sent. */
  private readonly refused: number[] = [];

  /**
   * The refusals it takes to count as a limit. Early in a run too: a refusal among the first
   * few requests sent is no less likely to be chance (at -c 64, one of the first 8 requests
   * refused at random halved the limit, which then took the rest of the run to climb back).
   */
  private readonly needed: number;

  constructor(ceiling: number) {
    this.window = Math.max(MIN_WINDOW, 2 * ceiling);
    this.needed = Math.ceil(this.window / SHARE);
  }

  /**
   * The request sent `seq`-th was refused, `sent` requests having been sent by now: true when
   * the refusals among the last `window` requests sent reach the share, or when it makes a run
   * of three requests sent one after another, all refused.
   */
  clustered(seq: number, sent: number): boolean {
    // Refusals come back in any order: keep those of the window, wherever they stand.
    const kept = this.refused.filter((s) => s > sent - this.window);
    kept.push(seq);
    this.refused.splice(0, this.refused.length, ...kept);
    if (kept.length >= this.needed) return true;
    const has = (s: number): boolean => kept.includes(s);
    return (has(seq - 1) && (has(seq - 2) || has(seq + 1))) || (has(seq + 1) && has(seq + 2));
  }
}
