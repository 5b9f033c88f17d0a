/**
 * The browser app (src/web), as the build bundles it (dist/web/app.js: `npm run build`, and
 * the test setup), read once and inlined into every page that runs it: a report page, a
 * bundle, `bas view`'s page. Read from beside this module in dist/, or, when this module runs
 * from src/ (the tests import it from there), from the project's dist/.
 */
import { readFileSync } from 'node:fs';

let app: string | null = null;

/** The app's script, safe to put inside `<script>…</script>`. */
export function appScript(): string {
  if (app !== null) return app;
  const where = [new URL('../../web/app.js', import.meta.url), new URL('../../../dist/web/app.js', import.meta.url)];
  let text: string | null = null;
  for (const url of where) {
    try {
      text = readFileSync(url, 'utf8');
      break;
    } catch {
      // not built there
    }
  }
  if (text === null) throw new Error('the browser app is not built: run npm run build (it writes dist/web/app.js)');
  // esbuild writes "</script" in strings as "<\/script"; a page must not end its script early.
  if (/<\/script/i.test(text)) throw new Error('dist/web/app.js holds "</script": it cannot be inlined');
  app = text;
  return app;
}
