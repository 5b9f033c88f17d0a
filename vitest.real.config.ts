import { defineConfig } from 'vitest/config';

/**
 * `npm run test:real`: bas against a real model behind a real server (tests/real). Apart from
 * `npm test`, since it needs the model and llama.cpp installed (scripts/real-model.sh install,
 * which .ci/run does) and the server answers one request at a time: the files run one by one.
 */
export default defineConfig({
  test: {
    include: ['tests/real/**/*.test.ts'],
    globalSetup: ['tests/support/build.ts', 'tests/real/server.ts'],
    fileParallelism: false,
    server: { deps: { external: [/\/dist\//] } },
    // A real model on a shared 2-core machine: a bound for a hang, not a judgement of speed.
    testTimeout: 900_000,
    hookTimeout: 900_000,
  },
});
