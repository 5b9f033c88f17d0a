/**
 * Run folders written before a base URL stopped carrying a provider's label (bas 0.4.0) may
 * say "provider prime" of 127.0.0.1. Every reader asks one place (settings/providers.ts,
 * recordedProvider) whether the label belongs to the host, so no report, leaderboard or page
 * prints "(provider prime)" beside a host that is not prime's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provenanceOf } from '../../src/report/provenance.js';
import { runEndpoints } from '../../src/runfile/endpoints.js';
import { recordedProvider } from '../../src/settings/providers.js';
import { bas } from '../support/cli.js';
import { writeRun } from './make-run.js';

let root: string;
let pages: string;
const FOREIGN = 'http://127.0.0.1:9/v1';
const PRIME = 'https://api.pinference.ai/api/v1';

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bas-provider-label-'));
  pages = mkdtempSync(join(tmpdir(), 'bas-provider-pages-'));
  // As bas 0.4.0 wrote it: the shipped config's provider beside a --base-url of another host.
  writeRun(join(root, 'old'), {
    n: 6,
    model: 'm/old',
    choose: () => 'oracle',
    runJson: { bas_version: '0.4.0', provider: 'prime', base_url: FOREIGN },
  });
  // Resumed from there against prime itself: each endpoint keeps its own answer.
  writeRun(join(root, 'moved'), {
    n: 6,
    model: 'm/moved',
    choose: () => 'oracle',
    runJson: {
      bas_version: '0.4.0',
      provider: 'prime',
      base_url: PRIME,
      endpoints: [
        { base_url: FOREIGN, provider: 'prime', rollouts: 3 },
        { base_url: PRIME, provider: 'prime', rollouts: 3 },
      ],
    },
  });
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(pages, { recursive: true, force: true });
});

describe("a provider label beside another provider's host", () => {
  it('is dropped by the one rule; a label on its own host, or of a provider bas does not ship, stays', () => {
    expect(recordedProvider('prime', FOREIGN)).toBeNull();
    expect(recordedProvider('prime', PRIME)).toBe('prime');
    expect(recordedProvider('prime', 'https://api.pinference.ai/other/v1')).toBe('prime');
    expect(recordedProvider('my-own', FOREIGN)).toBe('my-own');
    expect(recordedProvider(null, FOREIGN)).toBeNull();
    const run = JSON.parse(readFileSync(join(root, 'old', 'run.json'), 'utf8'));
    expect(provenanceOf(run, 'm/old', null)).toMatchObject({ provider: 'none', endpoint: '127.0.0.1:9' });
    expect(runEndpoints({ ...run, endpoints: [{ base_url: FOREIGN, provider: 'prime', rollouts: 6 }] }, 6)).toEqual([
      { base_url: FOREIGN, provider: null, rollouts: 6 },
    ]);
  });

  it('bas report (text, JSON, HTML) and the leaderboard (Markdown, CSV, HTML) never print it', async () => {
    const outputs = [
      (await bas(['report', join(root, 'old')])).stdout,
      (await bas(['report', join(root, 'old'), '--json'])).stdout,
      (await bas(['report', join(root, 'moved')])).stdout,
      (await bas(['leaderboard', root, '--markdown', '--resamples', '100'])).stdout,
      (await bas(['leaderboard', root, '--csv', '--resamples', '100'])).stdout,
    ];
    for (const [cmd, file] of [
      [['report', join(root, 'old')], join(pages, 'report.html')],
      [['leaderboard', root, '--resamples', '100'], join(pages, 'board.html')],
    ] as const) {
      const r = await bas([...cmd, '--html', file]);
      expect(r.code, r.stderr).toBe(0);
      outputs.push(readFileSync(file, 'utf8'));
    }
    for (const out of outputs) {
      expect(out).not.toMatch(/127\.0\.0\.1:9[^\n]{0,40}provider[^a-z]{0,12}prime/);
    }
    expect(outputs[0]).toMatch(/127\.0\.0\.1:9 \(provider none\)/);
    // The resumed run names prime where prime answered.
    expect(outputs[2]).toMatch(/pinference\.ai\/api\/v1 \(provider prime\) answered 3/);
    expect(outputs[2]).toMatch(/127\.0\.0\.1:9\/v1 answered 3/);
  });
});
