// Run by `prepare` (so by `npm ci` in a clone): puts `bas` into this project's own
// node_modules/.bin, where `npx bas` looks first. npm links the bins of dependencies there,
// but not the project's own; without the link, `npx bas` would fetch an unrelated package.
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const binDir = join(root, 'node_modules', '.bin');
const link = join(binDir, 'bas');
try {
  mkdirSync(binDir, { recursive: true });
  rmSync(link, { force: true });
  symlinkSync(relative(binDir, join(root, 'bin', 'bas.js')), link);
} catch (err) {
  // Not fatal: `node bin/bas.js` works without the link.
  console.warn(`bas: could not link node_modules/.bin/bas (${err.message}); use node bin/bas.js`);
}
