/**
 * Bundles the browser app (src/web/main.ts and the pure code it imports) into one script,
 * dist/web/app.js, which the report pages and `bas view` inline (src/report/html/app-script.ts).
 * Run by `npm run build` and by the test setup (tests/support/build.ts); plain JavaScript, so
 * node runs it as it is. `node scripts/build-web.mjs [ROOT]` builds it from the command line.
 */
import { buildSync } from 'esbuild';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Builds dist/web/app.js under `root`; throws with esbuild's messages when it cannot. */
export function buildWeb(root) {
  buildSync({
    entryPoints: [join(root, 'src/web/main.ts')],
    outfile: join(root, 'dist/web/app.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    // One script inlined into a page: no source map, no file it could ask for.
    sourcemap: false,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    tsconfig: join(root, 'src/web/tsconfig.json'),
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) buildWeb(resolve(process.argv[2] ?? '.'));
