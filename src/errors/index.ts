/**
 * The named errors of the program, one file per class, and the words for file errors. Each
 * message says what was wrong and, where it helps, what to do. An error with an `exitCode`
 * is the user's or the endpoint's; the CLI prints its message alone and exits with that
 * code. Anything else that reaches the CLI is a bug of bas and is reported as one.
 * Imports nothing outside this folder, so every layer may use it.
 */
export { ConfigError } from './config-error.js';
export { FatalRunError } from './fatal-run-error.js';
export { ErrorRateError } from './error-rate-error.js';
export { InterruptedError } from './interrupted-error.js';
export { MalformedResponseError, type ReplyFault, type TokenUsage } from './malformed-response-error.js';
export { ReasoningOnlyError } from './reasoning-only-error.js';
export { ResponseTooLargeError } from './response-too-large-error.js';
export { FileTooLargeError } from './file-too-large-error.js';
export { InputLineError } from './input-line-error.js';
export { TaskShapeError } from './task-shape-error.js';
export { BadRecordError } from './bad-record-error.js';
export { StreamCutError } from './stream-cut-error.js';
export { StreamIdleError } from './stream-idle-error.js';
export { StreamReportedError } from './stream-reported-error.js';
export { LabelError } from './label-error.js';
export { RequestError } from './request-error.js';
export { causeInWords, fileError, fileErrorMessage, systemErrorCode } from './file-error.js';
export { describeError } from './describe.js';
