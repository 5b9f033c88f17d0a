/**
 * What a page shows, computed once (src/display): the ledger marks every front end draws, the
 * address that reopens a view, the list's filters as the API asks them, and the diff of two
 * runs that leads with what flipped.
 */
import { describe, expect, it } from 'vitest';
import { diffRuns, flipsOf } from '../../src/display/diff.js';
import { apiParams, EMPTY_QUERY, keepRow, SHOW, type ListRow } from '../../src/display/list.js';
import { markLedger } from '../../src/display/marks.js';
import { pairText, parsePair, parseRoute, routeHash, type Route } from '../../src/display/route.js';

describe('the ledger marks', () => {
  const expected = { T01: ['gst_miscalculated'], T02: ['outside_period', 'duplicate_invoice'] };

  it('marks each fault found or missed and each wrong flag; a row by its worst mark', () => {
    const m = markLedger(
      ['T01', 'T02', 'T03'],
      expected,
      { T01: ['gst_miscalculated'], T02: ['outside_period'], T03: ['gst_on_gst_free'], T99: ['x'] },
      true,
    );
    expect(m.rows.map((r) => r.mark)).toEqual(['found', 'missed', 'wrong']);
    expect(m.rows[1]!.chips).toEqual([
      { kind: 'found', code: 'outside_period' },
      { kind: 'missed', code: 'duplicate_invoice' },
    ]);
    expect(m.missed).toEqual(['duplicate_invoice']);
    expect(m.wrong).toEqual(['gst_on_gst_free']);
    expect(m.extra).toEqual(['T99']);
  });

  it('a row found and wrongly flagged is marked wrong', () => {
    const m = markLedger(['T01'], expected, { T01: ['gst_miscalculated', 'outside_period'] }, true);
    expect(m.rows[0]!.mark).toBe('wrong');
  });

  it('an unparseable reply misses every fault; an errored one shows the key alone', () => {
    expect(markLedger(['T01'], expected, null, true).rows[0]!.chips).toEqual([
      { kind: 'missed', code: 'gst_miscalculated' },
    ]);
    expect(markLedger(['T01'], expected, null, false).rows[0]).toEqual({
      id: 'T01',
      chips: [{ kind: 'key', code: 'gst_miscalculated' }],
      mark: 'clean',
    });
  });

  it('ids such as __proto__ are ordinary ids', () => {
    const claims = Object.create(null) as Record<string, string[]>;
    claims.__proto__ = ['outside_period'];
    const m = markLedger(['__proto__', 'constructor'], {}, claims, true);
    expect(m.rows.map((r) => r.mark)).toEqual(['wrong', 'clean']);
  });
});

describe('the address', () => {
  const routes: Route[] = [
    { view: 'runs', sort: 'started', dir: 'desc' },
    { view: 'runs', sort: 'reward', dir: 'asc' },
    {
      view: 'run',
      run: 'runs/x',
      list: { ...EMPTY_QUERY, show: 'error', page: 2, sort: 'low' },
      open: { index: 5, rollout: 1 },
    },
    { view: 'run', run: 'a b/ü?#&', list: EMPTY_QUERY, open: null },
    { view: 'compare', a: 'runs/a', b: 'runs/b', open: { index: 3, rollout: 0 }, page: 0 },
    { view: 'sweep', sweep: 'sw/one' },
  ];

  it('reopens every view it writes', () => {
    for (const r of routes) expect(parseRoute(routeHash(r))).toEqual(r);
  });

  it('opens #/run/runs/x as it opens #/run/runs%2Fx (issue 36)', () => {
    expect(parseRoute('#/run/runs/x')).toMatchObject({ view: 'run', run: 'runs/x' });
    expect(parseRoute('#/run/runs%2Fx')).toMatchObject({ view: 'run', run: 'runs/x' });
    expect(routeHash(parseRoute('#/run/runs%2Fx'))).toBe('#/run/runs/x');
  });

  it("still opens bas 0.4's addresses", () => {
    expect(parseRoute('#/run/a/rollout/5:2')).toMatchObject({ run: 'a', open: { index: 5, rollout: 2 } });
    expect(parseRoute('#/run/sw%2Frows-24/rollout/7:0')).toMatchObject({
      run: 'sw/rows-24',
      open: { index: 7, rollout: 0 },
    });
    expect(parseRoute('#/run/a?errored=1&offset=100')).toMatchObject({ list: { show: 'error', page: 2 } });
    expect(parseRoute('#/compare/a/b/task/4:1')).toMatchObject({
      view: 'compare',
      a: 'a',
      b: 'b',
      open: { index: 4, rollout: 1 },
    });
  });

  it('reads a pair, and refuses what is not one', () => {
    expect(parsePair('12:3')).toEqual({ index: 12, rollout: 3 });
    expect(parsePair('12')).toEqual({ index: 12, rollout: 0 });
    expect(pairText({ index: 1, rollout: 2 })).toBe('1:2');
    for (const bad of ['', '-1:0', '1:x', '1:2:3', ' 1']) expect(parsePair(bad)).toBeNull();
  });
});

const row = (index: number, p: Partial<ListRow> = {}): ListRow => ({
  index,
  rollout: 0,
  reward: 1,
  errored: false,
  bas_correct: true,
  consistent: null,
  missed: [],
  wrong: [],
  unparseable: false,
  ...p,
});

describe('the list', () => {
  it('filters as the API does, and says how to ask the API', () => {
    const rows = [
      row(0),
      row(1, { reward: 0.2, bas_correct: false, missed: ['outside_period'] }),
      row(2, { reward: null, errored: true, bas_correct: null }),
    ];
    const kept = (q: Partial<typeof EMPTY_QUERY>) =>
      rows.filter((r) => keepRow({ ...EMPTY_QUERY, ...q }, r)).map((r) => r.index);
    expect(kept({ show: 'error' })).toEqual([2]);
    expect(kept({ show: 'bas-right' })).toEqual([0]);
    expect(kept({ show: 'imperfect' })).toEqual([1]);
    expect(kept({ missed: 'outside_period' })).toEqual([1]);
    expect(kept({ reward_min: '0.5' })).toEqual([0]);
    expect(kept({ task: '1' })).toEqual([1]);
    expect(apiParams({ ...EMPTY_QUERY, show: 'bas-right' })).toEqual({ reward_min: '0.6' });
    expect(apiParams({ ...EMPTY_QUERY, show: 'error', missed: 'outside_period' })).toEqual({
      errored: '1',
      missed: 'outside_period',
    });
    expect(apiParams({ ...EMPTY_QUERY, sort: 'low' })).toBeNull();
    // Every outcome the list offers is one the API can ask.
    for (const show of SHOW) expect(apiParams({ ...EMPTY_QUERY, show })).not.toBeNull();
    expect(apiParams({ ...EMPTY_QUERY, show: 'unparseable' })).toEqual({ unparseable: '1' });
  });
});

describe('the diff of two runs', () => {
  it('names what flipped', () => {
    const a = row(0);
    expect(flipsOf(a, row(0, { bas_correct: false, reward: 0.4, missed: ['outside_period'] }))).toEqual([
      'BAS right → BAS wrong',
      'missed outside_period gained',
    ]);
    expect(flipsOf(row(0, { wrong: ['gst_on_gst_free'] }), a)).toEqual(['wrongly flagged gst_on_gst_free lost']);
    expect(flipsOf(a, row(0, { errored: true, reward: null }))).toEqual(['BAS right → errored']);
    expect(flipsOf(a, a)).toEqual([]);
  });

  it('leads with the flips, then the reward moved most; counts what only one run holds', () => {
    const A = [row(0), row(1), row(2, { reward: 0.9 }), row(3), row(4)];
    const B = [
      row(0, { reward: 0.95 }),
      row(1, { bas_correct: false, reward: 0.4 }),
      row(2, { reward: 0.9, wrong: ['outside_period'] }),
      row(3),
      row(9),
    ];
    const d = diffRuns(['a', 'b'], A, B, 10);
    expect(d.rows.map((r) => r.index)).toEqual([1, 2, 0, 3]);
    expect(d.rows[0]!.delta).toBe(-0.6);
    expect(d).toMatchObject({ shared: 4, only_a: 1, only_b: 1, flipped: 2, changed: 3 });
    expect(diffRuns(['a', 'b'], A, B, 1).rows).toHaveLength(1);
  });

  it('keeps the first rows in order of many, as sorting them all would, and counts every one', () => {
    // 5,000 shared rollouts: past the rows a diff keeps before it drops those past its limit.
    const codes = ['outside_period', 'gst_on_gst_free', 'duplicate_invoice'];
    const pick = (i: number, k: number): ListRow =>
      (i * 7 + k) % 11 === 0
        ? row(i, { errored: true, reward: null, bas_correct: null })
        : row(i, {
            reward: ((i * 37 + k * 11) % 101) / 100,
            bas_correct: (i + k) % 3 !== 0,
            missed: codes.filter((_, c) => (i >> (c + k)) & 1),
          });
    const A = Array.from({ length: 5000 }, (_, i) => pick(i, 0));
    const B = Array.from({ length: 5000 }, (_, i) => pick(i, 1));
    for (const limit of [0, 7, 200]) {
      const all = diffRuns(['a', 'b'], A, B, 1e9);
      const d = diffRuns(['a', 'b'], A, B, limit);
      expect(all.rows).toHaveLength(5000);
      expect(d.rows).toEqual(all.rows.slice(0, limit));
      expect({ ...d, rows: [], limit: 0 }).toEqual({ ...all, rows: [], limit: 0 });
    }
    // The order is whole: flips before the rest, a BAS or error flip before a code's, then the reward moved.
    const all = diffRuns(['a', 'b'], A, B, 1e9).rows;
    const rank = (r: (typeof all)[number]) => (r.flips.length === 0 ? 0 : r.flips[0]!.includes('→') ? 2 : 1);
    for (let i = 1; i < all.length; i++) expect(rank(all[i - 1]!)).toBeGreaterThanOrEqual(rank(all[i]!));
    expect(new Set(all.map(rank))).toEqual(new Set([0, 1, 2]));
  });
});
