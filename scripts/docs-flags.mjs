// Rewrites the README's `bas eval` flag table from the settings declaration (run after
// `npm run build`, which `npm run docs:flags` does first). `--check` only reports a difference.
import { readFileSync, writeFileSync } from 'node:fs';
import { withFlagTable } from '../dist/settings/setting-docs.js';

const path = new URL('../README.md', import.meta.url);
const readme = readFileSync(path, 'utf8');
const next = withFlagTable(readme);
if (next === null) {
  process.stderr.write('docs:flags: README.md lacks the eval-flags markers\n');
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (next !== readme) {
    process.stderr.write('docs:flags: README.md flag table differs from the declaration: run npm run docs:flags\n');
    process.exit(1);
  }
} else if (next !== readme) {
  writeFileSync(path, next);
  process.stderr.write('docs:flags: README.md flag table rewritten\n');
}
