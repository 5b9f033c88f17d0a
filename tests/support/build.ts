/**
 * vitest globalSetup: one compiler pass before any test file runs. It type-checks the whole
 * project as tsconfig.json sees it (src, tests, bench) and writes src/ into dist/ as
 * tsconfig.build.json would, so `npm test` runs the compiler once, and the CLI the tests spawn
 * is always built from the source under test. Any error stops the run with the compiler's
 * own messages.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');

function config(file: string): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, file),
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

export default function build(): void {
  const all = config('tsconfig.json');
  const emit = config('tsconfig.build.json').options;
  const dist = join(ROOT, 'dist');
  // Emitting from the whole program puts src/x.ts at dist/src/x.js (its common root is the
  // project); each output is written back one level up, and nothing outside src/ is written.
  const options: ts.CompilerOptions = {
    ...all.options,
    noEmit: false,
    outDir: dist,
    rootDir: ROOT,
    declaration: emit.declaration ?? false,
    sourceMap: emit.sourceMap ?? false,
  };
  const program = ts.createProgram(all.fileNames, options);
  const diagnostics = [...ts.getPreEmitDiagnostics(program)];
  if (diagnostics.length === 0) {
    const srcOut = join(dist, 'src') + sep;
    const result = program.emit(undefined, (name, text) => {
      const path = resolve(name);
      if (!path.startsWith(srcOut)) return;
      const target = join(dist, relative(srcOut, path));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
    });
    diagnostics.push(...result.diagnostics);
  }
  if (diagnostics.length > 0) {
    const host: ts.FormatDiagnosticsHost = {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => '\n',
    };
    throw new Error(`type check or build failed:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
}
