/**
 * Errors: a line reader turns a typed bad line into one message naming the file and the line,
 * and lets a bug of bas go up as what it is; the CLI's printer tells the two apart (issue 15 §3).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BasError,
  ConfigError,
  describeError,
  FatalRunError,
  InputLineError,
  StreamCutError,
  TaskShapeError,
} from '../../src/errors/index.js';
import { readJsonLines } from '../../src/io/jsonl.js';
import { asClause } from '../../src/io/outside-text.js';
import { tempDir } from '../support/cli.js';

function twoLines(): string {
  const path = join(tempDir(), 'in.jsonl');
  writeFileSync(path, '{"a": 1}\n{"a": 2}\n');
  return path;
}

describe('readJsonLines', () => {
  it('names the file and line of a line its reader refuses', async () => {
    const path = twoLines();
    const read = readJsonLines(path, '--tasks', (v) => {
      if ((v as { a: number }).a === 2) throw new InputLineError('"a" must be 1');
    });
    await expect(read).rejects.toThrow(ConfigError);
    await expect(read).rejects.toThrow(`${path}:2: "a" must be 1`);
  });

  it('a task of the wrong shape is bad input too', async () => {
    const path = twoLines();
    await expect(
      readJsonLines(path, '--tasks', () => {
        throw new TaskShapeError('index must be a non-negative integer');
      }),
    ).rejects.toThrow(`${path}:1: index must be a non-negative integer`);
  });

  it('a bug in the reader is not passed off as a bad line', async () => {
    const path = twoLines();
    const read = readJsonLines(path, '--tasks', (v) => {
      (v as { missing: { deeper: number } }).missing.deeper;
    });
    await expect(read).rejects.toThrow(TypeError);
    await expect(read).rejects.not.toThrow(ConfigError);
  });
});

describe('describeError', () => {
  it('prints a named error as it is, with its exit code', () => {
    expect(describeError(new ConfigError('--num must be 1..100000'))).toEqual({
      line: '--num must be 1..100000',
      exitCode: 2,
      internal: false,
    });
    expect(describeError(new FatalRunError('the endpoint refused the key'))).toMatchObject({
      exitCode: 1,
      internal: false,
    });
  });

  it('says a system error in words, with its path', () => {
    const err = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      path: '/tmp/x',
      syscall: 'write',
    });
    expect(describeError(err)).toEqual({
      line: 'cannot write /tmp/x: no space left on device',
      exitCode: 1,
      internal: false,
    });
  });

  it("prints every BasError as the user's or the endpoint's, with its own exit code", () => {
    const cut = new StreamCutError('the stream ended before [DONE]', 3);
    expect(cut).toBeInstanceOf(BasError);
    expect(cut.code).toBe('BAS_STREAM_CUT');
    expect(describeError(cut)).toEqual({ line: 'the stream ended before [DONE]', exitCode: 1, internal: false });
  });

  it('does not take an exitCode field alone for a named error', () => {
    const lookalike = Object.assign(new Error('not ours'), { exitCode: 2 });
    expect(describeError(lookalike)).toMatchObject({ exitCode: 1, internal: true });
  });

  it('calls a bug a bug', () => {
    const r = describeError(new TypeError("Cannot read properties of undefined (reading 'x')"));
    expect(r.internal).toBe(true);
    expect(r.exitCode).toBe(1);
    expect(r.line).toMatch(/^internal error \(a bug in bas, please report it; BAS_DEBUG=1 shows where\): Cannot read/);
  });
});

describe('asClause', () => {
  it.each([
    ['Incorrect API key provided.', 'Incorrect API key provided'],
    ['no full stop', 'no full stop'],
    ['cut short…', 'cut short…'],
    ['an ellipsis...', 'an ellipsis...'],
    ['trailing space. ', 'trailing space'],
  ])('%j', (input, out) => expect(asClause(input)).toBe(out));
});
