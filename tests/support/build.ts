/**
 * vitest globalSetup: dist/ is built from the source under test before any test file runs, and
 * the whole project (src, tests, bench) is type-checked while the tests run, so `npm test`
 * runs the compiler once and no test waits for the type check it does not need.
 *
 * - The JavaScript of each module of src/ is written at once, file by file (a second or two).
 *   tsconfig.json sets isolatedModules, so the compiler refuses any code whose per-file output
 *   would differ from what `tsc` writes for the package.
 * - The browser app (src/web) is bundled into dist/web/app.js by the same esbuild call as
 *   `npm run build` makes (scripts/build-web.mjs), in a fraction of a second.
 * - A child process (types-child.mjs) builds the whole program, writes src/'s declarations into
 *   dist/, then writes the compiler's messages (empty: no error) to a result file. The test
 *   "the project type-checks" (build.test.ts) waits for that file and fails on any message, so
 *   a type error still fails the suite; tests that need the declarations wait for it too
 *   (typesChecked() in types-checked.ts).
 * - A run that ends before the check does (a single test file) stops the child.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the type check writes its messages once it is done (see types-checked.ts). */
    typesResult: string;
  }
}

const ROOT = resolve(import.meta.dirname, '../..');

function buildConfig(): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('cannot read tsconfig.build.json');
  return parsed;
}

/** Writes the JavaScript of every module of src/ into dist/, each file on its own. */
function writeJavaScript(): void {
  const config = buildConfig();
  // package.json says "type": "module", so under NodeNext every module is an ES module: one
  // file alone cannot see that, so it is told (the output is the same, byte for byte).
  const options: ts.CompilerOptions = {
    ...config.options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    declaration: false,
  };
  const src = join(ROOT, 'src');
  const dist = join(ROOT, 'dist');
  const failed: string[] = [];
  for (const file of config.fileNames) {
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: options,
      fileName: file,
      reportDiagnostics: true,
    });
    for (const d of out.diagnostics ?? [])
      failed.push(`${relative(ROOT, file)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    const target = join(dist, relative(src, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, out.outputText);
  }
  if (failed.length > 0) throw new Error(`build failed:\n${failed.join('\n')}`);
}

/** Bundles the browser app as `npm run build` does (scripts/build-web.mjs, plain JavaScript). */
async function buildWebApp(): Promise<void> {
  const script: string = pathToFileURL(join(ROOT, 'scripts', 'build-web.mjs')).href;
  const { buildWeb } = (await import(script)) as { buildWeb(root: string): void };
  buildWeb(ROOT);
}

export default async function setup(project: TestProject): Promise<() => void> {
  const work = mkdtempSync(join(tmpdir(), 'bas-types-'));
  const result = join(work, 'messages.txt');
  // Started first, so the check runs beside the JavaScript build and the tests.
  const child = spawn(process.execPath, [join(import.meta.dirname, 'types-child.mjs'), ROOT, result], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.on('exit', (code, signal) => {
    // The child writes its result last; one that died before that is reported in its place.
    if (code === 0) return;
    const partial = join(work, 'died.txt');
    writeFileSync(partial, `the type check ended with ${signal ?? `exit code ${code}`} and no result:\n${stderr}`);
    renameSync(partial, result);
  });
  try {
    writeJavaScript();
    await buildWebApp();
  } catch (e) {
    child.kill();
    throw e;
  }
  project.provide('typesResult', result);
  return () => {
    child.removeAllListeners('exit');
    if (child.exitCode === null && child.signalCode === null) child.kill();
    rmSync(work, { recursive: true, force: true });
  };
}
