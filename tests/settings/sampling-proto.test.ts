/**
 * What run.json records as sent is what is sent: a `__proto__` key in --sampling (or in the
 * TOML `sampling.extra` table) would be taken by JavaScript as a prototype and dropped from the
 * request while run.json kept it, so it is refused, naming where it is.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';

describe('a __proto__ key in the sampling fields', () => {
  it('--sampling with "__proto__" at the top is refused before any run folder is made', async () => {
    const dir = join(tempDir(), 'run');
    const r = await bas([
      'eval',
      '-m',
      'builtin:oracle',
      '-n',
      '1',
      '--sampling',
      '{"top_p": 0.9, "__proto__": {"temperature": 2}}',
      '--output',
      dir,
      '--no-progress',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--sampling may not hold the key "__proto__" \(at the top\)/);
    expect(existsSync(join(dir, 'run.json'))).toBe(false);
  });

  it('the same key deeper down, or in a TOML sampling.extra table, is refused and named', async () => {
    const deep = await bas(['check', '--sampling', '{"reasoning": {"__proto__": {"effort": "high"}}}']);
    expect(deep.code).toBe(2);
    expect(deep.stderr).toMatch(/may not hold the key "__proto__" \(at reasoning\)/);
    const toml = join(tempDir(), 'run.toml');
    writeFileSync(toml, 'model = "builtin:oracle"\nn = 1\n\n[sampling.extra]\n__proto__ = { top_p = 0.5 }\n');
    const r = await bas(['eval', `@${toml}`, '--output', join(tempDir(), 'run'), '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/may not hold the key "__proto__"/);
  });
});
