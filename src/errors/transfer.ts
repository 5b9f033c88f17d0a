/**
 * An error carried from a worker thread to the thread that started it, as the same class with
 * the same fields. A structured clone keeps only the message and stack of an Error (its class
 * becomes Error or one of the built-in kinds, and `exitCode`, `line`, `code` or `path` are
 * lost), which would turn a ConfigError into an internal error on the other side. So the
 * sending side names the class and copies the own fields, and the receiving side makes an
 * object of that class from them. A class not defined here (a bug's TypeError, say) comes back
 * as a plain Error with the same message and stack: still a bug, never bad input.
 */
import * as named from './index.js';

/** An error as plain data, safe to post to another thread. */
export interface ErrorData {
  /** The class's name when it is one of src/errors/, else null. */
  className: string | null;
  name: string;
  message: string;
  stack: string | undefined;
  /** The error's own fields that clone as they are (`exitCode`, `code`, `path`, `line` …). */
  fields: Record<string, unknown>;
  cause?: ErrorData;
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** Every error class of src/errors/, by name. */
const CLASSES: ReadonlyMap<string, ErrorClass> = new Map(
  (Object.values(named) as unknown[])
    .filter((v): v is ErrorClass => typeof v === 'function' && v.prototype instanceof Error)
    .map((c) => [c.name, c]),
);

/** A field's value when it can cross as it is: numbers, strings, booleans, null, and plain data of those. */
function plain(value: unknown, depth = 0): boolean {
  if (value === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof value)) return true;
  if (depth > 4 || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return false;
  return Object.values(value as object).every((v) => plain(v, depth + 1));
}

/** `err` as data another thread can rebuild with `errorFromData`. */
export function errorToData(err: unknown, depth = 0): ErrorData {
  if (!(err instanceof Error))
    return { className: null, name: 'Error', message: String(err), stack: undefined, fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err)) if (k !== 'cause' && plain(v)) fields[k] = v;
  const ctor = err.constructor as ErrorClass | undefined;
  const className = ctor && CLASSES.get(ctor.name) === ctor ? ctor.name : null;
  const cause = (err as { cause?: unknown }).cause;
  return {
    className,
    name: err.name,
    message: err.message,
    stack: err.stack,
    fields,
    ...(cause !== undefined && depth < 4 ? { cause: errorToData(cause, depth + 1) } : {}),
  };
}

/** The error `data` describes, of its class when it is one of src/errors/, else a plain Error. */
export function errorFromData(data: ErrorData): Error {
  const cls = data.className === null ? undefined : CLASSES.get(data.className);
  // Made without its constructor (each takes other arguments), then given what it had.
  const err = Object.create((cls ?? Error).prototype as object) as Error;
  Object.defineProperty(err, 'message', { value: data.message, writable: true, configurable: true });
  Object.assign(err, data.fields);
  // A plain Error keeps the name it had (TypeError …) so the stack and message read as before.
  if (!cls && data.name !== 'Error')
    Object.defineProperty(err, 'name', { value: data.name, writable: true, configurable: true });
  Object.defineProperty(err, 'stack', { value: data.stack, writable: true, configurable: true });
  if (data.cause) Object.defineProperty(err, 'cause', { value: errorFromData(data.cause), configurable: true });
  return err;
}
