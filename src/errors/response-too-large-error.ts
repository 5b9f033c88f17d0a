/** A response body passed the cap; the connection was closed without reading the rest. */
export class ResponseTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the response body passed the ${describeBytes(limitBytes)} cap on responses; the connection was closed`);
    this.name = 'ResponseTooLargeError';
  }
}

function describeBytes(n: number): string {
  if (n >= 1048576 && n % 1048576 === 0) return `${n / 1048576} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n}-byte`;
}
