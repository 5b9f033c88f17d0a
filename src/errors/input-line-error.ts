/**
 * A line of an input file (tasks, replies, batch output) that is not what it should be. Thrown
 * by the functions that read one parsed line; the line reader (`readJsonLines`) adds the file
 * and line number and turns it into a ConfigError. Anything else a line's reader throws is a
 * bug of bas and is reported as one, never as bad input.
 */
export class InputLineError extends Error {
  override name = 'InputLineError';
}
