import { InputLineError } from './input-line-error.js';

/** A task read back from its file form has a field of the wrong shape; the message names its path. */
export class TaskShapeError extends InputLineError {
  override name = 'TaskShapeError';
}
