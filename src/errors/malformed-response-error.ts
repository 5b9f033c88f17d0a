/** The endpoint answered 200 with something that is not a usable completion. */
export class MalformedResponseError extends Error {
  override name = 'MalformedResponseError';
}
