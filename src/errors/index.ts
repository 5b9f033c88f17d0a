/**
 * The named errors of the program, grouped by what they are about, and the words for file
 * errors. Every class extends `BasError`, with a stable `code` and the CLI's `exitCode`; each
 * message says what was wrong and, where it helps, what to do. The CLI prints a `BasError`'s
 * message alone and exits with its code; anything else that reaches it is a bug of bas and is
 * reported as one. Imports nothing outside this folder, so every layer may use it.
 */
export {
  BasError,
  BudgetError,
  ConfigError,
  ErrorRateError,
  FatalRunError,
  InterruptedError,
  type BasErrorCode,
} from './bas-error.js';
export { BadRecordError, InputLineError, TaskShapeError } from './input.js';
export {
  MalformedResponseError,
  ReasoningOnlyError,
  ResponseTooLargeError,
  StreamCutError,
  StreamIdleError,
  StreamReportedError,
  type ReplyFault,
  type TokenUsage,
} from './reply.js';
export { LabelError, RequestError } from './refusals.js';
export { causeInWords, fileError, fileErrorMessage, FileTooLargeError, systemErrorCode } from './files.js';
export { describeError } from './describe.js';
