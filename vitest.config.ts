import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Builds dist/ before any test, so the CLI the tests spawn is the source under test.
    globalSetup: ['tests/support/build.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
