/** A file past the size its reader accepts; `limit` is that size in bytes. */
export class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';
  constructor(
    readonly path: string,
    readonly limit: number,
  ) {
    super(`${path} is larger than ${limit} bytes`);
  }
}
