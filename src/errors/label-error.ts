/** A task label the reward server cannot grade: `status` is the HTTP status to answer with. */
export class LabelError extends Error {
  override name = 'LabelError';
  constructor(
    message: string,
    readonly status: 400 | 422,
  ) {
    super(message);
  }
}
