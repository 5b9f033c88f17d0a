/**
 * An error posted from a worker thread comes back as what it was: every class of src/errors/
 * as that class with its fields (so the CLI picks the same exit code and line), a system error
 * with its code and path, and anything else as a plain error the printer calls a bug.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as named from '../../src/errors/index.js';
import { describeError } from '../../src/errors/index.js';
import { errorFromData, errorToData } from '../../src/errors/transfer.js';

/** What the other thread gets: the data through a structured clone, as postMessage sends it. */
const across = (err: unknown): Error => errorFromData(structuredClone(errorToData(err)));

/** One of each class, made as its own code makes it. */
const examples: Error[] = [
  new named.ConfigError('bad -n', { cause: new Error('under it') }),
  new named.FatalRunError('the endpoint refused the key'),
  new named.ErrorRateError('3 of 4 rollouts errored'),
  new named.InterruptedError('interrupted by SIGTERM', 143),
  new named.MalformedResponseError('no answer', { fault: 'empty', usage: null, finishReason: 'length' }),
  new named.ReasoningOnlyError('only reasoning', { fault: 'reasoning_only' }),
  new named.ResponseTooLargeError(1024),
  new named.FileTooLargeError('/tmp/x', 10),
  new named.InputLineError('"a" must be 1'),
  new named.TaskShapeError('index must be an integer'),
  new named.BadRecordError('results.jsonl:3: not JSON', 3),
  new named.StreamCutError('the stream ended early'),
  new named.StreamIdleError('no token for 30 s'),
  new named.StreamReportedError('the stream said: overloaded'),
  new named.LabelError('bad label', 422),
  new named.RequestError(400, 'bad request'),
];

describe('errors across threads', () => {
  it('has an example of every error class, so a new one is tried too', () => {
    const classes = (Object.values(named) as unknown[]).filter(
      (v): v is abstract new (...a: never[]) => Error =>
        typeof v === 'function' && v.prototype instanceof Error && v !== named.BasError,
    );
    expect(examples.map((e) => e.constructor.name).sort()).toEqual(classes.map((c) => c.name).sort());
  });

  it.each(examples.map((e) => [e.constructor.name, e] as const))('keeps a %s as itself', (_, err) => {
    const back = across(err);
    expect(back).toBeInstanceOf(err.constructor);
    expect(back.constructor).toBe(err.constructor);
    expect({ ...back }).toEqual({ ...err });
    expect(back.message).toBe(err.message);
    expect(back.name).toBe(err.name);
    expect(back.stack).toBe(err.stack);
    expect(describeError(back)).toEqual(describeError(err));
  });

  it('keeps a cause, of its own class', () => {
    const back = across(examples[0]) as Error & { cause: Error };
    expect(back.cause).toBeInstanceOf(Error);
    expect(back.cause.message).toBe('under it');
  });

  it('keeps a system error’s code, call and path, so its line names the file and the cause', () => {
    let err: unknown;
    try {
      readFileSync('/nonexistent/bas/run.json');
    } catch (e) {
      err = e;
    }
    const back = across(err);
    expect(describeError(back)).toEqual(describeError(err));
    expect(describeError(back)).toMatchObject({ internal: false, exitCode: 1 });
  });

  it('turns a bug into a plain error with its name, message and stack: still a bug', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    const back = across(bug);
    expect(back.constructor).toBe(Error);
    expect(back.name).toBe('TypeError');
    expect(back.stack).toBe(bug.stack);
    expect(describeError(back)).toEqual(describeError(bug));
    expect(describeError(back).internal).toBe(true);
    // Something thrown that is not an Error at all still arrives as one line.
    expect(describeError(across('a string'))).toMatchObject({
      internal: true,
      line: expect.stringContaining('a string'),
    });
  });

  it('leaves out fields that would not clone, rather than failing to send', () => {
    const odd = Object.assign(new named.FatalRunError('with a handle'), { handle: () => 1, socket: new Map() });
    const back = across(odd);
    expect(back).toBeInstanceOf(named.FatalRunError);
    expect(back).not.toHaveProperty('handle');
    expect(back).not.toHaveProperty('socket');
  });
});
