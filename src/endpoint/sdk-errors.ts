/**
 * Telling the openai SDK's errors apart without loading the SDK. The SDK is imported only
 * when a client is made (sdk.ts); the classifier runs on every failure, a built-in model's
 * included, and must not pull ~150 modules in for that. An SDK error can only exist once the
 * SDK is loaded, so recognising its classes by their place in the SDK's own hierarchy (every
 * one derives from `OpenAIError`) is exact; tests/endpoint/sdk-errors.test.ts holds it to
 * `instanceof` for every error class the installed SDK exports.
 */
import type { APIError } from 'openai';

/** What kind of SDK error `err` is, most specific first; null when it is not one. */
export type SdkErrorKind = 'timeout' | 'abort' | 'connection' | 'status';

const KINDS: ReadonlyMap<string, SdkErrorKind> = new Map([
  ['APIConnectionTimeoutError', 'timeout'],
  ['APIUserAbortError', 'abort'],
  ['APIConnectionError', 'connection'],
  ['APIError', 'status'],
]);

/** The class names on `err`'s prototype chain, from its own class to Error's. */
function classNames(err: Error): string[] {
  const names: string[] = [];
  for (let p: unknown = Object.getPrototypeOf(err); p !== null && p !== Error.prototype; p = Object.getPrototypeOf(p)) {
    const ctor = (p as { constructor?: unknown }).constructor;
    names.push(typeof ctor === 'function' ? ctor.name : '');
  }
  return names;
}

export function sdkErrorKind(err: unknown): SdkErrorKind | null {
  if (!(err instanceof Error)) return null;
  const names = classNames(err);
  // The SDK's root class, directly under Error: another library's "APIError" is not one.
  if (names.at(-1) !== 'OpenAIError') return null;
  for (const name of names) {
    const kind = KINDS.get(name);
    if (kind) return kind;
  }
  return null;
}

/** An SDK status error (`sdkErrorKind` said 'status' and it carries a status). */
export function isSdkStatusError(err: unknown): err is APIError & { status: number } {
  return sdkErrorKind(err) === 'status' && typeof (err as { status?: unknown }).status === 'number';
}
