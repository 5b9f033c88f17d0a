// A stand-in for dist/engine/eval-worker.js that dies before it answers, the way its
// environment's DIE says: out of memory, an uncaught bug, an exit of its own, or silently.
// tests/engine/eval-thread.test.ts starts it to see each death end the call with one clear error.
import { parentPort } from 'node:worker_threads';

const how = process.env.DIE;
if (how === 'oom') {
  const kept = [];
  for (;;) kept.push(Array.from({ length: 1e4 }, (_, i) => ({ i })));
} else if (how === 'throw') {
  setImmediate(() => {
    throw new TypeError('a bug in the thread');
  });
} else if (how === 'exit') {
  process.exit(7);
} else {
  parentPort.close();
}
