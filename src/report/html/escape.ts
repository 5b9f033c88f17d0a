/** Escaping for text put into HTML and for JSON embedded in a page. */
import { redact } from '../../io/secrets.js';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text safe inside an element or a quoted attribute, any registered key cut out first: the
 * markup a page adds to text (entities, `<wbr>` after a `-`) would split a key where the file
 * writer's redaction could no longer see it.
 */
export function escapeHtml(text: string): string {
  return redact(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * JSON safe inside `<script type="application/json">`: `<` is written as \u003c, so no
 * `</script>` or `<!--` in a model's reply can end the element early. U+2028/9 likewise.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
