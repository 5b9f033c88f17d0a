/**
 * Stable JSON: object keys sorted, so two values that mean the same compare equal as text.
 * Used to compare saved and requested settings (resume) and the inputs of a merge. It lives
 * alone so that neither caller pulls in the other's dependencies (the openai SDK, for one).
 */
export function canon(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
