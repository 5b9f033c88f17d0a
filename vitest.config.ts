import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // tests/real needs the real model and server: `npm run test:real` (vitest.real.config.ts).
    exclude: [...configDefaults.exclude, 'tests/real/**'],
    // Builds dist/ before any test, so the CLI the tests spawn is the source under test, and
    // type-checks the project beside the tests (see the file).
    globalSetup: ['tests/support/build.ts'],
    // Most test files spend their time waiting on a child process (the CLI, bas serve) or a
    // socket, not computing: vitest's default (one worker per core, less one) would run them
    // one at a time on a 2-core machine, with a core idle.
    maxWorkers: Number(process.env.BAS_TEST_WORKERS) || availableParallelism() + 1,
    // The tests run the compiled CLI in their own process (tests/support/cli.ts): node loads
    // dist/ itself, as `node bin/bas.js` would, rather than vite transforming it again.
    server: { deps: { external: [/\/dist\//] } },
    // A timeout is there to catch a test that hangs, not to judge speed. The slowest test, the
    // type check's (tests/support/build.test.ts, waiting on tsc), took 34 s beside two busy
    // loops at a load of 10 (issue 37's measure; others 8 s at most). Tests set no shorter one.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
