/**
 * Started by the test setup (build.ts) as `node types-child.mjs ROOT RESULT`: type-checks the
 * project as tsconfig.json sees it (src, tests, bench) and the browser app as src/web/tsconfig.json does, writes the declarations of src/ into
 * dist/ as tsconfig.build.json would, then writes the compiler's messages to RESULT (empty when
 * there are none), whole or not at all. Plain JavaScript, so node runs it as it is.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const [root, result] = process.argv.slice(2);

function config(file) {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, file),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${file}`);
  return parsed;
}

const all = config('tsconfig.json');
const dist = join(root, 'dist');
// The whole program's common root is the project, so src/x.ts would go to dist/src/x.d.ts:
// each declaration is written one level up instead.
const program = ts.createProgram(all.fileNames, {
  ...all.options,
  noEmit: false,
  outDir: dist,
  rootDir: root,
  declaration: true,
});
const src = join(root, 'src') + sep;
const srcOut = join(dist, 'src') + sep;
const diagnostics = [];
for (const file of program.getSourceFiles()) {
  if (!resolve(file.fileName).startsWith(src)) continue;
  const emitted = program.emit(
    file,
    (name, text) => {
      const path = resolve(name);
      if (!path.startsWith(srcOut)) return;
      const target = join(dist, relative(srcOut, path));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
    },
    undefined,
    true,
  );
  diagnostics.push(...emitted.diagnostics);
}
diagnostics.push(...ts.getPreEmitDiagnostics(program));
// The browser app, under its own configuration (the DOM library, no node types).
const web = config('src/web/tsconfig.json');
diagnostics.push(...ts.getPreEmitDiagnostics(ts.createProgram(web.fileNames, web.options)));
const host = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};
const partial = `${result}.partial`;
writeFileSync(partial, ts.formatDiagnostics(diagnostics, host));
renameSync(partial, result);
