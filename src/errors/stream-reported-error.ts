/** A streamed reply carried an error object instead of a chunk (a `provider` failure). */
export class StreamReportedError extends Error {
  override name = 'StreamReportedError';
}
