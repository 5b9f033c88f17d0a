// Rewrites docs/flags.md from the flag declaration (run after `npm run build`, which
// `npm run docs:flags` does first). `--check` only reports a difference.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderFlagsDoc } from '../dist/settings/setting-docs.js';

const path = new URL('../docs/flags.md', import.meta.url);
let old = '';
try {
  old = readFileSync(path, 'utf8');
} catch {
  // Written below.
}
const next = renderFlagsDoc();
if (process.argv.includes('--check')) {
  if (next !== old) {
    process.stderr.write('docs:flags: docs/flags.md differs from the declaration: run npm run docs:flags\n');
    process.exit(1);
  }
} else if (next !== old) {
  writeFileSync(path, next);
  process.stderr.write('docs:flags: docs/flags.md rewritten\n');
}
