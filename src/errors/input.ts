/** Lines of input files and results files that are not what they should be. */
import { BasError, ConfigError, type BasErrorCode } from './bas-error.js';

/**
 * A line of an input file (tasks, replies, batch output) that is not what it should be. Thrown
 * by the functions that read one parsed line; the line reader (`readJsonLines`) adds the file
 * and line number and turns it into a ConfigError. Anything else a line's reader throws is a
 * bug of bas and is reported as one, never as bad input. Exit code 2.
 */
export class InputLineError extends BasError {
  readonly code: BasErrorCode = 'BAS_INPUT_LINE';
  readonly exitCode: number = 2;
}

/** A task read back from its file form has a field of the wrong shape; the message names its path. */
export class TaskShapeError extends InputLineError {
  override readonly code: BasErrorCode = 'BAS_TASK_SHAPE';
}

/** A line of a results file that is not a rollout record (and not a torn last line); `line` is 1-based. */
export class BadRecordError extends ConfigError {
  override readonly code: BasErrorCode = 'BAS_BAD_RECORD';
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}
