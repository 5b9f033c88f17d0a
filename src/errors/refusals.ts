/**
 * What the reward server refuses, with the HTTP status to answer with. The server answers
 * them and goes on; should one end a command, it is bad input, exit code 2.
 */
import { BasError, type BasErrorCode } from './bas-error.js';

/** A task label the reward server cannot grade: `status` is the HTTP status to answer with. */
export class LabelError extends BasError {
  readonly code: BasErrorCode = 'BAS_LABEL';
  readonly exitCode: number = 2;
  constructor(
    message: string,
    readonly status: 400 | 422,
  ) {
    super(message);
  }
}

/** A request a server of bas (reward server, view) refuses: `status` is the HTTP status, the message says what to fix. */
export class RequestError extends BasError {
  readonly code: BasErrorCode = 'BAS_REQUEST';
  readonly exitCode: number = 2;
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
