/**
 * The CLI's stop: an AbortSignal for a run, aborted by Ctrl-C, SIGTERM, the run's `stop`
 * (std.ts `onStop`) or a closed output pipe, with the reason (message and exit code) of
 * whichever came first.
 */
import { InterruptedError } from '../errors/index.js';
import { onOutputClosed } from './output.js';
import * as std from './std.js';

/** Why the CLI stops a run, as the reason of its AbortSignal: the message and the exit code. */
const STOPS: Record<'SIGINT' | 'SIGTERM' | 'SIGPIPE', () => InterruptedError> = {
  SIGINT: () => new InterruptedError('interrupted by SIGINT', 130),
  SIGTERM: () => new InterruptedError('interrupted by SIGTERM', 143),
  SIGPIPE: () => new InterruptedError('stopped: the reader of its output went away (closed pipe)', 141),
};

/**
 * Runs `body` with an AbortSignal that Ctrl-C, SIGTERM, the run's `stop` (src/io/std.ts
 * `onStop`) and a closed output pipe abort (the first wins), with every handler removed again
 * afterwards, however it ends. While it runs, a repeated stop signal within a second is the
 * same stop delivered twice and is ignored; a later one ends the process at once.
 */
export async function withStopSignal<T>(body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onSignal = (sig: keyof typeof STOPS): void => {
    if (!stop.signal.aborted) stop.abort(STOPS[sig]());
  };
  const offStop = std.onStop(onSignal);
  // A reader that went away (`| head -1`) ends the run as a signal would: run.json final, lock removed.
  const offPipe = onOutputClosed(() => onSignal('SIGPIPE'));
  try {
    return await body(stop.signal);
  } finally {
    offStop();
    offPipe();
  }
}
