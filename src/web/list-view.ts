/**
 * A run's rollouts, a page at a time: the filters (outcome, a fault code missed or wrongly
 * flagged, a reward range, consistency, one task), the order, the pager and the table. Its
 * state is the address's (display/route.ts): every change is a new address, so the back button
 * and a copied link give the same list. Only the table is rebuilt on a change; the controls
 * stay, so typing in them is not interrupted.
 */
import { fmt, int } from '../display/format.js';
import { CONSISTENCY, SHOW_TEXT, type ListQuery, type ListRow } from '../display/list.js';
import type { Pair } from '../display/route.js';
import { FAULT_CODES } from '../task/types.js';
import { clear, el, problem } from './dom.js';
import type { RolloutsAnswer } from './answers.js';
import type { Source } from './source.js';

const HEAD = ['task', 'rollout', 'reward', 'outcome', 'missed', 'wrongly flagged', 'consistent'];

function outcome(r: ListRow): HTMLElement {
  const [cls, text] = r.errored
    ? ['error', 'errored']
    : r.unparseable
      ? ['unparseable', 'unparseable']
      : r.bas_correct
        ? ['bas-right', 'BAS right']
        : ['bas-wrong', 'BAS wrong'];
  return el('td', { cls: 'text' }, [el('span', { cls: `badge ${cls}`, text })]);
}

export class ListView {
  readonly root: HTMLElement;
  private readonly info = el('span', { id: 'matching', cls: 'small' });
  private readonly reading = el('p', { id: 'reading', cls: 'note small' });
  private readonly body = el('tbody');
  private readonly prev = el('button', { id: 'prev', type: 'button', text: '◀ prev' });
  private readonly next = el('button', { id: 'next', type: 'button', text: 'next ▶' });
  private q: ListQuery;
  private open: Pair | null;
  private asked = 0;

  constructor(
    private readonly source: Source,
    private readonly run: string,
    q: ListQuery,
    open: Pair | null,
    private readonly go: (q: ListQuery, open: Pair | null, replace: boolean) => void,
    withWhy: boolean,
  ) {
    this.q = q;
    this.open = open;
    const head = el(
      'tr',
      null,
      [...HEAD, ...(withWhy ? ['embedded as'] : [])].map((h) => el('th', { text: h })),
    );
    this.prev.addEventListener('click', () => this.change({ page: this.q.page - 1 }));
    this.next.addEventListener('click', () => this.change({ page: this.q.page + 1 }));
    this.root = el('div', { cls: 'rollout-list' }, [
      this.controls(),
      el('div', { cls: 'controls pager' }, [this.prev, this.next, this.info]),
      this.reading,
      el('table', { id: 'task-list' }, [el('thead', null, [head]), this.body]),
    ]);
  }

  /** A new address for the list: a filter change starts at the first page. */
  private change(part: Partial<ListQuery>): void {
    const page = part.page ?? 0;
    this.go({ ...this.q, ...part, page }, this.open, 'task' in part);
  }

  private select(name: keyof ListQuery, id: string | null, options: Array<[string, string]>): HTMLElement {
    const s = el('select', { id, name });
    for (const [value, text] of options) s.append(el('option', { value, text }));
    s.value = String(this.q[name]);
    s.addEventListener('change', () => this.change({ [name]: s.value }));
    return el('label', null, [`${name.replace('_', ' ')} `, s]);
  }

  private input(name: keyof ListQuery, id: string | null, attrs: Record<string, string>): HTMLElement {
    const i = el('input', { id, name, ...attrs });
    i.value = String(this.q[name]);
    i.addEventListener(name === 'task' ? 'input' : 'change', () => this.change({ [name]: i.value.trim() }));
    return el('label', null, [`${name.replace('_', ' ')} `, i]);
  }

  private controls(): HTMLElement {
    const codes: Array<[string, string]> = [['', 'any'], ...FAULT_CODES.map((c): [string, string] => [c, c])];
    const shows = this.source.shows.map((s): [string, string] => [s, SHOW_TEXT[s]]);
    const reward = { type: 'number', step: '0.05', min: '0', max: '1', size: '5' };
    return el('div', { cls: 'controls filters' }, [
      this.select('show', 'filter', shows),
      this.source.sorts
        ? this.select('sort', 'sort', [
            ['index', 'by task'],
            ['low', 'lowest reward first'],
            ['high', 'highest reward first'],
          ])
        : null,
      this.select('missed', null, codes),
      this.select('wrong', null, codes),
      this.input('reward_min', null, reward),
      this.input('reward_max', null, reward),
      this.select(
        'consistency',
        null,
        CONSISTENCY.map((c): [string, string] => [c, c || 'any']),
      ),
      this.input('task', 'query', { type: 'search', size: '8', placeholder: 'any' }),
    ]);
  }

  /** Shows the list for `q` with `open` marked; resolves with the answer (null when a newer ask overtook it). */
  async show(q: ListQuery, open: Pair | null): Promise<RolloutsAnswer | null> {
    this.q = q;
    this.open = open;
    const asked = ++this.asked;
    let a: RolloutsAnswer;
    try {
      a = await this.source.rollouts(this.run, q);
    } catch (err) {
      if (asked === this.asked) clear(this.body).append(el('tr', null, [el('td', null, [problem(err)])]));
      return null;
    }
    if (asked !== this.asked) return null;
    this.fill(a);
    return a;
  }

  /** Asks for the list again as it is (a live run grew). */
  refresh(): void {
    void this.show(this.q, this.open);
  }

  private fill(a: RolloutsAnswer): void {
    const from = a.offset;
    const to = Math.min(a.matching, from + a.rows.length);
    this.info.textContent = `${a.matching ? `${from + 1}–${to}` : '0'} of ${int(a.matching)} matching (${int(a.total)} rollouts)`;
    const rd = a.index?.reading;
    this.reading.textContent = rd
      ? `reading results.jsonl for the first time: ${Math.floor((100 * rd.read) / Math.max(1, rd.of))}% done; the rollouts read so far are listed, and the list follows`
      : a.held_of
        ? `This bundle holds ${int(a.total)} of the run's ${int(a.held_of)} rollouts (the worst, the best, samples per fault code and error type), as a report page does; bas report on the run folder prints any other with --rollout I:R.`
        : '';
    this.prev.disabled = this.q.page === 0;
    this.next.disabled = to >= a.matching;
    clear(this.body).append(...a.rows.map((r) => this.row(r)));
  }

  private row(r: ListRow): HTMLElement {
    const open = this.open?.index === r.index && this.open.rollout === r.rollout;
    const tr = el('tr', { 'data-index': r.index, 'data-rollout': r.rollout, cls: open ? 'selected' : null }, [
      el('td', { text: r.index }),
      el('td', { text: r.rollout }),
      el('td', { text: fmt(r.reward) }),
      outcome(r),
      el('td', { cls: 'text small', text: r.missed.join(', ') }),
      el('td', { cls: 'text small', text: r.wrong.join(', ') }),
      el('td', { text: r.consistent === null ? '–' : r.consistent ? 'yes' : 'no' }),
      r.why ? el('td', { cls: 'text small wrap', text: r.why.join(', ') }) : null,
    ]);
    tr.addEventListener('click', () => this.go(this.q, { index: r.index, rollout: r.rollout }, false));
    return tr;
  }
}
