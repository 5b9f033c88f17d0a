/**
 * src/io/std.ts as the one owner of stop signals: a command told once, a burst of the same
 * stop ignored, a later repeat forcing the end, cleanups run only before the process dies of a
 * signal, a host program that handles the signal itself never killed, and the run's `stop`.
 * Signals are emitted on the process (as Node delivers them) with process.kill mocked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { beforeSignalDeath, onStop, STOP_REPEAT_GRACE_MS, withStd, type StopSignal } from '../../src/io/std.js';
import { ROOT } from '../support/cli.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const saved = new Map<StopSignal, Array<(...a: unknown[]) => void>>();
const send = (sig: StopSignal): boolean => process.emit(sig, sig);
const handlers = (): number[] => SIGNALS.map((s) => process.listenerCount(s));
let kill: ReturnType<typeof vi.spyOn>;
/** Each test's clock starts well after the last one's: a stop's grace never reaches into the next test. */
let clock = Date.now();

beforeEach(() => {
  // The test runner's own handlers are set aside: here the CLI is the process.
  for (const s of SIGNALS) {
    saved.set(s, process.listeners(s) as Array<(...a: unknown[]) => void>);
    process.removeAllListeners(s);
  }
  kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout'], now: (clock += 1e7) });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const s of SIGNALS) {
    process.removeAllListeners(s);
    for (const f of saved.get(s) ?? []) process.on(s, f);
  }
});

describe('onStop', () => {
  it('tells the command once; the same stop repeated within the grace is ignored', () => {
    const told: string[] = [];
    const off = onStop((s) => told.push(s));
    send('SIGINT');
    vi.advanceTimersByTime(1);
    send('SIGINT');
    vi.advanceTimersByTime(STOP_REPEAT_GRACE_MS - 2);
    send('SIGTERM');
    expect(told).toEqual(['SIGINT']);
    off();
    // The command has ended but the process may still be exiting: the grace still holds.
    send('SIGINT');
    expect(handlers()).toEqual([1, 1]);
    expect(kill).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2);
    expect(handlers()).toEqual([0, 0]);
  });

  it('a repeat after the grace ends the process of that signal, after the cleanups', () => {
    const told: string[] = [];
    const cleaned: string[] = [];
    const off = onStop((s) => told.push(s));
    const offClean = beforeSignalDeath(() => cleaned.push('temps'));
    send('SIGINT');
    expect(cleaned).toEqual([]);
    vi.advanceTimersByTime(STOP_REPEAT_GRACE_MS);
    send('SIGINT');
    expect(told).toEqual(['SIGINT']);
    expect(cleaned).toEqual(['temps']);
    expect(kill).toHaveBeenCalledWith(process.pid, 'SIGINT');
    expect(handlers()).toEqual([0, 0]);
    off();
    offClean();
  });

  it('a new command gets a new grace: the last one’s stop is forgotten once it ended', () => {
    onStop(() => {})();
    const first = onStop(() => {});
    send('SIGTERM');
    first();
    vi.advanceTimersByTime(STOP_REPEAT_GRACE_MS * 5);
    expect(handlers()).toEqual([0, 0]);
    const told: string[] = [];
    const off = onStop((s) => told.push(s));
    send('SIGTERM');
    expect(told).toEqual(['SIGTERM']);
    expect(kill).not.toHaveBeenCalled();
    off();
  });

  it("is told by the run's stop, with the signal its reason names", () => {
    const std = { stdout: new PassThrough(), stderr: new PassThrough(), env: {} };
    const told: string[] = [];
    for (const reason of ['SIGINT', 'SIGTERM', undefined]) {
      const stop = new AbortController();
      const off = withStd({ ...std, stop: stop.signal }, () => onStop((s) => told.push(s)));
      stop.abort(reason);
      off();
    }
    const late = new AbortController();
    late.abort('SIGINT');
    withStd({ ...std, stop: late.signal }, () => onStop((s) => told.push(`already ${s}`)))();
    expect(told).toEqual(['SIGINT', 'SIGTERM', 'SIGTERM', 'already SIGINT']);
    expect(handlers()).toEqual([0, 0]);
  });
});

describe('beforeSignalDeath', () => {
  it('with no command under way, cleans up and dies of the signal (130/143 to the shell)', () => {
    const cleaned: string[] = [];
    beforeSignalDeath(() => cleaned.push('temps'));
    send('SIGTERM');
    expect(cleaned).toEqual(['temps']);
    expect(kill).toHaveBeenCalledWith(process.pid, 'SIGTERM');
    expect(handlers()).toEqual([0, 0]);
  });

  it('never kills, nor cleans under, a host program that handles the signal itself', () => {
    const host = vi.fn();
    process.on('SIGINT', host);
    const cleaned: string[] = [];
    const off = beforeSignalDeath(() => cleaned.push('temps'));
    send('SIGINT');
    expect(host).toHaveBeenCalledOnce();
    expect(cleaned).toEqual([]);
    expect(kill).not.toHaveBeenCalled();
    off();
    expect(handlers()).toEqual([1, 0]);
  });
});

it('no other module listens for stop signals or kills its own process', () => {
  const src = join(ROOT, 'src');
  const found: string[] = [];
  for (const f of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (!f.endsWith('.ts') || f === join('io', 'std.ts')) continue;
    const text = readFileSync(join(src, f), 'utf8');
    if (/process\.(on|once|addListener|prependListener)\(\s*['"]SIG(INT|TERM)|process\.kill\(process\.pid/.test(text))
      found.push(f);
  }
  expect(found, 'use onStop or beforeSignalDeath (src/io/std.ts)').toEqual([]);
});
