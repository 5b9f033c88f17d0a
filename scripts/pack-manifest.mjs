// Run by `prepack` and `postpack`: the packed package.json carries no `prepare` script. A
// checkout needs it (`npm ci` compiles the TypeScript and links `bas`), but an installed
// package is already built, and npm warns about every install script it finds in one.
// `strip` keeps the manifest as it was and writes it without `prepare`; `restore` puts it back.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
// Under node_modules: ignored by git and never packed.
const kept = join(root, 'node_modules', '.cache', 'bas-pack', 'package.json');

const step = process.argv[2];
if (step === 'strip') {
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  if (pkg.scripts?.prepare !== undefined) {
    mkdirSync(dirname(kept), { recursive: true });
    writeFileSync(kept, text);
    for (const name of ['prepare', 'prepack', 'postpack']) delete pkg.scripts[name];
    writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
  }
} else if (step === 'restore') {
  if (existsSync(kept)) {
    renameSync(kept, manifest);
    rmSync(dirname(kept), { recursive: true, force: true });
  }
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exitCode = 2;
}
