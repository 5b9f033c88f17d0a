/**
 * The script of a run's page, as text inlined into the page. It reads the embedded JSON,
 * lists rollouts a page at a time (filter, sort, jump to an index) and builds a task's
 * drill-down only when it is opened, so a 10,000-rollout run never becomes one huge DOM.
 * Every string from the run (replies, ids, codes) goes in through textContent, never HTML.
 *
 * The rollout and ledger-row tuples are read by field name through `data.layout`, declared
 * once in drilldown.ts: no position is written here.
 */
export const RUN_PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('bas-data').textContent);
  // Field positions come from the layout declared once in drilldown.ts, carried in the data.
  var F = {}, ROW = {}, INTERNED = {};
  data.layout.rollout.forEach(function (n, i) { F[n] = i; });
  data.layout.row.forEach(function (n, i) { ROW[n] = i; });
  data.layout.interned.forEach(function (n) { INTERNED[ROW[n]] = true; });
  var TEXT_COLS = { date: 1, type: 1, counterparty: 1, description: 1, category: 1, invoice: 1, abn: 1 };
  var DESC_COLS = { counterparty: 1, description: 1 };
  var PAGE = 50;
  var state = { filter: 'all', sort: 'index', query: '', page: 0, selected: null };
  var list = document.querySelector('#task-list tbody');
  var drill = document.getElementById('drill');

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(v) { return v === null || v === undefined ? '–' : Number(v).toFixed(3); }
  function kind(r) {
    if (r[F.error_type] !== null) return 'error';
    if (r[F.unparseable] !== null) return 'unparseable';
    return r[F.bas_correct] === 1 ? 'bas-right' : 'bas-wrong';
  }
  function kindText(r) {
    if (r[F.error_type] !== null) return 'error: ' + r[F.error_type];
    if (r[F.unparseable] !== null) return 'unparseable';
    return r[F.bas_correct] === 1 ? 'BAS right' : 'BAS wrong';
  }
  function keep(r) {
    if (state.filter === 'imperfect') { if (r[F.reward] === 1) return false; }
    else if (state.filter !== 'all' && kind(r) !== state.filter) return false;
    if (state.query !== '' && String(r[F.index]) !== state.query) return false;
    return true;
  }
  function rewardOf(r) { return r[F.reward] === null ? -1 : r[F.reward]; }
  function sorted(rows) {
    if (state.sort === 'low') return rows.sort(function (a, b) { return rewardOf(a) - rewardOf(b) || a[F.index] - b[F.index] || a[F.rollout] - b[F.rollout]; });
    if (state.sort === 'high') return rows.sort(function (a, b) { return rewardOf(b) - rewardOf(a) || a[F.index] - b[F.index] || a[F.rollout] - b[F.rollout]; });
    return rows;
  }

  function renderList() {
    var rows = sorted(data.rollouts.filter(keep));
    var pages = Math.max(1, Math.ceil(rows.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    var slice = rows.slice(state.page * PAGE, state.page * PAGE + PAGE);
    list.textContent = '';
    slice.forEach(function (r) {
      var tr = el('tr');
      tr.dataset.index = String(r[F.index]);
      tr.dataset.rollout = String(r[F.rollout]);
      if (state.selected === r) tr.className = 'selected';
      tr.appendChild(el('td', null, r[F.index]));
      tr.appendChild(el('td', null, r[F.rollout]));
      tr.appendChild(el('td', null, fmt(r[F.reward])));
      tr.appendChild(el('td', null, fmt(r[F.bas_correct])));
      tr.appendChild(el('td', null, fmt(r[F.fault_audit])));
      var st = el('td', 'text');
      st.appendChild(el('span', 'badge ' + kind(r), kindText(r)));
      tr.appendChild(st);
      // Many reasons make a long line: it wraps, so the list never widens the page.
      tr.appendChild(el('td', 'text small wrap', r[F.why].join(', ')));
      tr.addEventListener('click', function () { openDrill(r); });
      list.appendChild(tr);
    });
    document.getElementById('page-info').textContent =
      rows.length === 0 ? 'no rollouts match' :
      'page ' + (state.page + 1) + ' of ' + pages + ' · ' + rows.length + ' rollouts';
    document.getElementById('prev').disabled = state.page === 0;
    document.getElementById('next').disabled = state.page >= pages - 1;
  }

  function codeName(i) { return data.codes[i]; }

  function chip(cls, text, title) {
    var c = el('span', 'chip ' + cls, text);
    c.title = title;
    return c;
  }

  function figureTable(r, task) {
    var t = el('table');
    var head = el('tr');
    ['label', 'expected', 'given', ''].forEach(function (h, i) { head.appendChild(el('th', i === 3 ? 'text' : null, h)); });
    t.appendChild(el('thead')).appendChild(head);
    var body = el('tbody');
    data.labels.forEach(function (label, i) {
      var tr = el('tr');
      tr.appendChild(el('td', null, label));
      tr.appendChild(el('td', null, task ? task.bas[i] : '–'));
      var given = r[F.figures] ? r[F.figures][i] : null;
      tr.appendChild(el('td', null, given ? given[0] : '–'));
      tr.appendChild(el('td', given ? (given[1] ? 'right text' : 'wrongfig text') : 'text', given ? (given[1] ? '✓ right' : '✗ wrong') : ''));
      body.appendChild(tr);
    });
    t.appendChild(body);
    return t;
  }

  function ledgerTable(r, task) {
    var given = r[F.faults];
    var judged = given !== null || r[F.unparseable] !== null; // an unparseable reply claimed nothing
    var t = el('table', 'ledger');
    var head = el('tr');
    data.layout.row.concat(['audit']).forEach(function (h) {
      head.appendChild(el('th', TEXT_COLS[h] || h === 'audit' ? 'text' : null, h));
    });
    t.appendChild(el('thead')).appendChild(head);
    var body = el('tbody');
    var seen = {};
    task.rows.forEach(function (row) {
      var id = row[ROW.id];
      seen[id] = true;
      var expected = (Object.prototype.hasOwnProperty.call(task.faults, id) ? task.faults[id] : []).map(codeName);
      var claimed = given && Object.prototype.hasOwnProperty.call(given, id) ? given[id] : [];
      var tr = el('tr');
      var cell = el('td', 'text wrap');
      var found = 0, missed = 0, wrong = 0;
      expected.forEach(function (c) {
        if (!judged) { cell.appendChild(chip('expected', c, 'a fault in the key')); return; }
        if (claimed.indexOf(c) >= 0) { found++; cell.appendChild(chip('found', '✓ ' + c, 'fault found')); }
        else { missed++; cell.appendChild(chip('missed', 'missed: ' + c, 'fault in the key, not flagged')); }
      });
      claimed.forEach(function (c) {
        if (expected.indexOf(c) < 0) { wrong++; cell.appendChild(chip('wrong', '✗ ' + c, 'flagged, but not a fault of this row')); }
      });
      var mark = wrong ? 'wrong' : missed ? 'missed' : found ? 'found' : 'clean';
      tr.className = 'row-' + mark;
      tr.dataset.mark = mark;
      row.forEach(function (v, i) {
        var name = data.layout.row[i];
        var text = INTERNED[i] ? data.strings[v] : v; // interned fields are numbers into the string table
        tr.appendChild(el('td', DESC_COLS[name] ? 'text desc' : TEXT_COLS[name] ? 'text' : null, text));
      });
      tr.appendChild(cell);
      body.appendChild(tr);
    });
    t.appendChild(body);
    var extra = given ? Object.keys(given).filter(function (id) { return !seen[id]; }) : [];
    return { table: t, extra: extra };
  }

  function openDrill(r) {
    state.selected = r;
    Array.prototype.forEach.call(list.children, function (tr) {
      tr.classList.toggle('selected', tr.dataset.index === String(r[F.index]) && tr.dataset.rollout === String(r[F.rollout]));
    });
    var task = r[F.task] >= 0 ? data.tasks[r[F.task]] : null;
    drill.textContent = '';
    var sec = el('section');
    sec.id = 'drill-panel';
    sec.appendChild(el('h2', null, 'Task ' + r[F.index] + ', rollout ' + r[F.rollout]));
    var meta = el('div', 'meta');
    meta.appendChild(el('span', null, 'reward ' + fmt(r[F.reward])));
    meta.appendChild(el('span', null, 'bas_correct ' + fmt(r[F.bas_correct])));
    meta.appendChild(el('span', null, 'fault_audit ' + fmt(r[F.fault_audit])));
    meta.appendChild(el('span', null, kindText(r)));
    sec.appendChild(meta);
    if (r[F.error_type] !== null) sec.appendChild(el('p', 'note', 'This rollout ended with an error (' + r[F.error_type] + '): ' + r[F.error_message]));
    if (r[F.unparseable] !== null) sec.appendChild(el('p', 'note', 'The reply could not be parsed: ' + r[F.unparseable]));
    if (task) {
      sec.appendChild(el('p', 'small', task.business + ' · BAS quarter ' + task.period[0] + ' to ' + task.period[1]));
      sec.appendChild(el('h3', null, 'BAS figures'));
      sec.appendChild(figureTable(r, task));
      sec.appendChild(el('h3', null, 'Ledger'));
      var legend = el('p', 'small legend');
      legend.appendChild(chip('found', '✓ found', ''));
      legend.appendChild(chip('missed', 'missed', ''));
      legend.appendChild(chip('wrong', '✗ wrongly flagged', ''));
      sec.appendChild(legend);
      var lt = ledgerTable(r, task);
      var wrap = el('div');
      wrap.style.overflowX = 'auto';
      wrap.appendChild(lt.table);
      sec.appendChild(wrap);
      if (lt.extra.length) sec.appendChild(el('p', 'note', 'Flags on ids that are not in the ledger: ' + lt.extra.join(', ')));
    } else {
      sec.appendChild(el('p', 'note', 'The ledger is not shown: ' + (r[F.no_task] || 'the task cannot be rebuilt') + '.'));
    }
    sec.appendChild(el('h3', null, 'Reply'));
    var reply = r[F.reply] === null ? '(no reply)' : r[F.reply];
    if (r[F.reply] !== null && r[F.reply].length >= data.maxReplyChars) reply += '\n… (cut at ' + data.maxReplyChars + ' characters; results.jsonl has it all)';
    sec.appendChild(el('pre', 'reply', reply));
    drill.appendChild(sec);
    sec.scrollIntoView({ block: 'start' });
  }

  document.getElementById('filter').addEventListener('change', function (e) { state.filter = e.target.value; state.page = 0; renderList(); });
  document.getElementById('sort').addEventListener('change', function (e) { state.sort = e.target.value; state.page = 0; renderList(); });
  document.getElementById('query').addEventListener('input', function (e) { state.query = e.target.value.trim(); state.page = 0; renderList(); });
  document.getElementById('prev').addEventListener('click', function () { state.page--; renderList(); });
  document.getElementById('next').addEventListener('click', function () { state.page++; renderList(); });
  renderList();
})();
`;
