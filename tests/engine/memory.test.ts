import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const MEMORY = resolve(import.meta.dirname, '../../dist/engine/memory.js');
// Fill the heap, then call the hook often enough for it to look and collect; report whether
// V8 was asked for a full collection and whether --expose-gc got switched on behind our back.
const SCRIPT = `
const { gcWhenAbove } = await import(${JSON.stringify(MEMORY)});
const { getHeapStatistics } = await import('node:v8');
const { runInNewContext } = await import('node:vm');
let junk = Array.from({ length: 200000 }, (_, i) => ({ i, s: 'x'.repeat(20) }));
const before = getHeapStatistics().used_heap_size;
junk = null;
const tick = gcWhenAbove(1, 10);
for (let i = 0; i < 11; i++) tick();
const after = getHeapStatistics().used_heap_size;
// A flag set at run time shows in any new context: gc() appears there.
console.log(JSON.stringify({ gcExposed: runInNewContext('typeof gc') === 'function', collected: after < before / 2 }));
`;

function run(flags: string[]): { gcExposed: boolean; collected: boolean } {
  const r = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', SCRIPT], { encoding: 'utf8' });
  return JSON.parse(r.stdout.trim());
}

describe('gcWhenAbove (dist/, built by npm run build)', () => {
  it('never turns on --expose-gc by itself', () => {
    expect(run([]).gcExposed).toBe(false);
  });
  it('collects when node was started with --expose-gc', () => {
    expect(run(['--expose-gc'])).toEqual({ gcExposed: true, collected: true });
  });
});
