/**
 * Building the page. Every string from a run (replies, ids, codes, model names) goes in as a
 * text node or an attribute value, never as markup: there is no path from data to HTML here.
 */

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

/**
 * An element with attributes and children. `text` sets the text, `cls` the class; an `on…`
 * key adds a listener (its value must be a function, so data can never become a handler).
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  children: readonly Child[] = [],
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k === 'cls') e.className = String(v);
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (typeof v !== 'function') e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

/** Empties `e` and returns it. */
export function clear<E extends Element>(e: E): E {
  e.replaceChildren();
  return e;
}

/** A table with a header row of `head`. */
export function table(head: readonly string[], attrs: Attrs | null = null): HTMLTableElement {
  const t = el('table', attrs);
  t.append(
    el('thead', null, [
      el(
        'tr',
        null,
        head.map((h) => el('th', { text: h })),
      ),
    ]),
    el('tbody'),
  );
  return t;
}

/** A table's body. */
export const bodyOf = (t: HTMLTableElement): HTMLTableSectionElement => t.tBodies[0]!;

/** Key-value rows (provenance, facts). */
export function pairsTable(
  pairs: ReadonlyArray<readonly [string, string]>,
  attrs: Attrs | null = null,
): HTMLTableElement {
  return el(
    'table',
    attrs,
    pairs.map(([k, v]) => el('tr', null, [el('th', { text: k }), el('td', { text: v })])),
  );
}

/** A line saying what went wrong. */
export function problem(err: unknown): HTMLElement {
  return el('p', { cls: 'problem', text: err instanceof Error ? err.message : String(err) });
}
