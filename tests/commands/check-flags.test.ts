/**
 * `bas check --help` lists the settings check uses and names the rest in a note. The list is
 * held to what `runCheck` actually reads, whole reply and stream alike: the parts of the plan
 * it reads, and the settings those parts are made of. A setting it reads is never shown as
 * unused, and one shown as used is read (or is an input of the endpoint, which resolveSettings
 * turns into the base URL and key check sends to). So a new sampling or endpoint setting
 * cannot be shown as ignored while check sends it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { runCheck } from '../../src/commands/check.js';
import { COMMAND_FLAGS } from '../../src/settings/command-flags.js';
import { SETTING_KEYS, taskConfigOf, type SettingKey } from '../../src/settings/setting-table.js';
import { resolveSettings, type EvalSettings } from '../../src/settings/settings.js';
import { planOf, targetOf } from '../../src/settings/plan.js';
import { startServer, type RunningServer } from '../../src/serve/serve.js';
import { QUIET_SERVE } from '../support/serve-options.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer(QUIET_SERVE);
});
afterAll(() => server.close());

const ENV = { K: 'k' };
const sink = () =>
  new Writable({
    write(_chunk, _enc, done) {
      done();
    },
  });

/** The settings `runCheck` reads, whole reply or stream as `stream` says. */
async function settingsRead(stream: boolean): Promise<Set<string>> {
  const s = resolveSettings({ model: 'm', baseUrl: server.url, apiKeyVar: 'K', stream, shard: '2/3' }, null, '', ENV);
  const watch = <T extends object>(o: T, read: Set<string>, prefix = ''): T =>
    new Proxy(o, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof key !== 'string') return value;
        read.add(prefix + key);
        // The tasks are read field by field: check sends the first task, whatever the run's size.
        return key === 'tasks' && prefix === '' ? watch(value as object, read, 'tasks.') : value;
      },
    });
  // The parts of the plan runCheck reads, then the settings each of those parts is made of.
  const parts = new Set<string>();
  const report = await runCheck(watch(planOf(s), parts), ENV, sink());
  expect(report?.ok).toBe(true);
  const makers: Record<string, (s: EvalSettings) => unknown> = {
    model: (s) => s.model,
    target: targetOf,
    tasks: () => null,
    'tasks.config': taskConfigOf,
    'tasks.shard': (s) => s.shard,
    'tasks.n': (s) => s.num,
    'tasks.rollouts': (s) => s.rollouts,
  };
  expect([...parts].filter((p) => !(p in makers))).toEqual([]);
  const read = new Set<string>();
  for (const p of parts) makers[p]!(watch(s, read));
  return read;
}

describe("bas check's help", () => {
  it('lists every setting check reads, and only those (and the endpoint inputs)', async () => {
    const read = new Set([...(await settingsRead(false)), ...(await settingsRead(true))]);
    const flags = COMMAND_FLAGS.check as Record<string, { unused?: boolean }>;
    const settings = SETTING_KEYS.filter((k) => k in flags);
    const listed = settings.filter((k) => !flags[k]!.unused);
    // Read by resolveSettings only: it picks the base URL and key variable check sends with.
    const endpointInputs: SettingKey[] = ['providers'];
    expect(settings.filter((k) => read.has(k) && flags[k]!.unused)).toEqual([]);
    expect(listed.filter((k) => !read.has(k) && !endpointInputs.includes(k))).toEqual([]);
    // The probe itself is in the list: the model, a task setting, a sampling field, a bound.
    for (const k of ['model', 'seed', 'temperature', 'sampling', 'streamIdleTimeout', 'shard'])
      expect(listed).toContain(k);
  });
});
