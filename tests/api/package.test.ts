/**
 * The public API as a user gets it: `npm pack`, the tarball installed into an empty folder
 * (from npm's cache, no network), imported from a type-checked TypeScript file and from plain
 * ESM JavaScript, running the worked example of docs/api.md against the built-in oracle. The
 * example is read from the document, so the two cannot drift apart. Skipped, with a notice,
 * where npm is not installed.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../support/cli.js';
import { typesChecked } from '../support/types-checked.js';

const hasNpm = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasNpm) console.warn('tests/api/package.test.ts: skipped, npm is not installed');

function run(cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/**
 * A worked example of docs/api.md: its `which`th TypeScript block that has an "It prints:"
 * block after it (0: the first, runEval; 1: the report calls), and the output it documents.
 */
function example(which = 0): { code: string; output: string[] } {
  const doc = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
  const found = [...doc.matchAll(/```ts\n((?:(?!```)[\s\S])*)```\n\nIt prints:\n\n```\n([\s\S]*?)```/g)][which]!;
  return { code: found[1]!, output: found[2]!.trim().split('\n') };
}

/** The example's output matches the documented one, but for the time it took. */
function expectDocumentedOutput(stdout: string, documented: string[]): void {
  const lines = stdout.trim().split('\n');
  const timeless = (l: string): string => l.replace(/in [\d.]+ s$/, 'in N s');
  expect(lines.map(timeless)).toEqual(documented.map(timeless));
}

describe.skipIf(!hasNpm)('the packed package', () => {
  let app: string;
  let files: string[];
  let manifestBefore: string;
  let manifestAfter: string;
  let installOutput: string;
  beforeAll(async () => {
    // The declarations in dist/ are written by the type check the test setup runs beside the tests.
    await typesChecked();
    const work = tempDir('bas-pack-');
    // What the checkout would pack, found without running its scripts (that changes nothing).
    const listed = JSON.parse(
      ok(run('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], ROOT), 'npm pack --dry-run'),
    ) as Array<{ files: Array<{ path: string }> }>;
    // Packed for real, scripts and all, from a copy: prepack rewrites the copy's package.json
    // for a moment, which the checkout's own must never see. dist/ is built by the test setup.
    const copy = join(work, 'checkout');
    for (const f of [...listed[0]!.files.map((x) => x.path), 'scripts/pack-manifest.mjs'])
      cpSync(join(ROOT, f), join(copy, f));
    manifestBefore = readFileSync(join(copy, 'package.json'), 'utf8');
    const packed = JSON.parse(
      ok(run('npm', ['pack', '--json', '--pack-destination', work], copy), 'npm pack'),
    ) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    manifestAfter = readFileSync(join(copy, 'package.json'), 'utf8');
    files = packed[0]!.files.map((f) => f.path);
    app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    const tarball = join(work, packed[0]!.filename);
    const quiet = ['--no-audit', '--no-fund', '--loglevel=error'];
    // Dependencies come from npm's cache (this machine installed them for the project).
    let install = run('npm', ['install', '--offline', ...quiet, tarball], app);
    if (install.status !== 0) install = run('npm', ['install', '--prefer-offline', ...quiet, tarball], app);
    installOutput = ok(install, 'npm install of the tarball') + install.stderr;
  }, 300_000);

  it('holds the CLI, the module with its declarations and the provider registry, and no sources or tests', () => {
    for (const f of ['bin/bas.js', 'dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'package.json'])
      expect(files).toContain(f);
    expect(files.some((f) => f.startsWith('configs/'))).toBe(true);
    expect(files.filter((f) => /^(src|tests|bench)\//.test(f))).toEqual([]);
  });

  it('declares no install script, so installing it runs nothing and npm warns of nothing; the checkout keeps its prepare', () => {
    const installed = JSON.parse(readFileSync(join(app, 'node_modules', 'bas-eval', 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    for (const name of ['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack'])
      expect(installed.scripts?.[name]).toBeUndefined();
    expect(installOutput).not.toMatch(/install-scripts|prepare/);
    // prepack's change is undone by postpack: the checkout's npm ci still builds.
    expect(manifestAfter).toBe(manifestBefore);
    expect((JSON.parse(manifestAfter) as { scripts: Record<string, string> }).scripts.prepare).toContain('tsc');
  });

  it('runs the worked example of docs/api.md from TypeScript, type-checked with declarations that mean something', () => {
    const { code, output } = example();
    writeFileSync(join(app, 'example.ts'), code);
    // Declarations that collapsed to `any` would let these through: each must be an error.
    writeFileSync(
      join(app, 'types.ts'),
      [
        "import { generateTask, runEval, scoreReply, type EvalOutcome } from 'bas-eval';",
        '// @ts-expect-error: num_transactions is a number',
        "generateTask({ num_transactions: 'many' }, 0);",
        '// @ts-expect-error: a key, not a string',
        "scoreReply('reply', 'key');",
        '// @ts-expect-error: runEval takes a configuration, not a model name',
        "void runEval('builtin:oracle');",
        '// @ts-expect-error: a configuration has the TOML keys, not the resolved settings’ names',
        "void runEval({ model: 'm', maxRetries: 2 });",
        '// @ts-expect-error: the resolved settings are internal',
        "export type Internal = import('bas-eval').EvalSettings;",
        "export const kinds: Array<EvalOutcome['kind']> = ['ok', 'interrupted'];",
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: true,
          outDir: 'out',
          // The project's own Node types: the empty folder has none installed.
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['example.ts', 'types.ts'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    ok(run(process.execPath, [tsc, '-p', 'tsconfig.json'], app), 'tsc');
    const r = ok(run(process.execPath, [join('out', 'example.js')], app), 'the compiled example');
    expectDocumentedOutput(r, output);
  });

  it('runs the same example as plain ESM JavaScript, and keeps the internals out of reach', () => {
    const { code, output } = example();
    writeFileSync(join(app, 'example.mjs'), code);
    expectDocumentedOutput(ok(run(process.execPath, ['example.mjs'], app), 'the .mjs example'), output);
    const internal = run(process.execPath, ['--input-type=module', '-e', "await import('bas-eval/dist/cli.js')"], app);
    expect(internal.status).not.toBe(0);
    expect(internal.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
    const cli = run(process.execPath, [join('node_modules', 'bas-eval', 'bin', 'bas.js'), '--version'], app);
    expect(ok(cli, 'bas --version').trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('runs the report example of docs/api.md (compareRuns, leaderboard with tiers, LaTeX and SVG), type-checked', () => {
    const { code, output } = example(1);
    writeFileSync(join(app, 'reports.ts'), code);
    // The first example's compiler options (strict, unchecked index access), on this file.
    const config = { extends: './tsconfig.json', compilerOptions: { outDir: 'out-reports' }, files: ['reports.ts'] };
    writeFileSync(join(app, 'tsconfig.reports.json'), JSON.stringify(config));
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    ok(run(process.execPath, [tsc, '-p', 'tsconfig.reports.json'], app), 'tsc');
    const r = ok(run(process.execPath, [join('out-reports', 'reports.js')], app), 'the compiled report example');
    expectDocumentedOutput(r, output);
  });
});
