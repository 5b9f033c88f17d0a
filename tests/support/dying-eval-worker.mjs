// A stand-in for dist/engine/eval-worker.js that dies before it answers, the way its
// environment's DIE says: out of memory, an uncaught bug, an exit of its own, or silently.
// With DIE=oom-at-first-record it is the real worker, which runs out of memory as the run
// writes its first record (run.json says running, the folder is locked).
// tests/engine/eval-thread.test.ts starts it to see each death end the call with one clear error.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { parentPort } from 'node:worker_threads';

const how = process.env.DIE;
const oom = () => {
  const kept = [];
  for (;;) kept.push(Array.from({ length: 1e4 }, (_, i) => ({ i })));
};
if (how === 'oom') {
  oom();
} else if (how === 'oom-at-first-record') {
  const write = fs.writeSync;
  fs.writeSync = function (fd, data, ...rest) {
    if (Buffer.isBuffer(data) && data.includes('"index"')) oom();
    return write.call(this, fd, data, ...rest);
  };
  syncBuiltinESMExports();
  await import('../../dist/engine/eval-worker.js');
} else if (how === 'throw') {
  setImmediate(() => {
    throw new TypeError(`a bug in the thread${process.env.SAY ? `: ${process.env.SAY}` : ''}`);
  });
} else if (how === 'exit') {
  process.exit(7);
} else {
  parentPort.close();
}
