/**
 * The script of a run's page, as text inlined into the page. It reads the embedded JSON,
 * lists rollouts a page at a time (filter, sort, jump to an index) and builds a task's
 * drill-down only when it is opened, so a 10,000-rollout run never becomes one huge DOM.
 * Every string from the run (replies, ids, codes) goes in through textContent, never HTML.
 *
 * Rollout tuple: [task, index, rollout, reward, bas_correct, fault_audit, error type,
 * error message, reply, given figures, given faults, unparseable reason] (see drilldown.ts).
 */
export const RUN_PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('bas-data').textContent);
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
    if (r[6] !== null) return 'error';
    if (r[11] !== null) return 'unparseable';
    return r[4] === 1 ? 'bas-right' : 'bas-wrong';
  }
  function kindText(r) {
    if (r[6] !== null) return 'error: ' + r[6];
    if (r[11] !== null) return 'unparseable';
    return r[4] === 1 ? 'BAS right' : 'BAS wrong';
  }
  function keep(r) {
    if (state.filter === 'imperfect') { if (r[3] === 1) return false; }
    else if (state.filter !== 'all' && kind(r) !== state.filter) return false;
    if (state.query !== '' && String(r[1]) !== state.query) return false;
    return true;
  }
  function rewardOf(r) { return r[3] === null ? -1 : r[3]; }
  function sorted(rows) {
    if (state.sort === 'low') return rows.sort(function (a, b) { return rewardOf(a) - rewardOf(b) || a[1] - b[1] || a[2] - b[2]; });
    if (state.sort === 'high') return rows.sort(function (a, b) { return rewardOf(b) - rewardOf(a) || a[1] - b[1] || a[2] - b[2]; });
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
      tr.dataset.index = String(r[1]);
      tr.dataset.rollout = String(r[2]);
      if (state.selected === r) tr.className = 'selected';
      tr.appendChild(el('td', null, r[1]));
      tr.appendChild(el('td', null, r[2]));
      tr.appendChild(el('td', null, fmt(r[3])));
      tr.appendChild(el('td', null, fmt(r[4])));
      tr.appendChild(el('td', null, fmt(r[5])));
      var st = el('td', 'text');
      st.appendChild(el('span', 'badge ' + kind(r), kindText(r)));
      tr.appendChild(st);
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
      var given = r[9] ? r[9][i] : null;
      tr.appendChild(el('td', null, given ? given[0] : '–'));
      tr.appendChild(el('td', given ? (given[1] ? 'right text' : 'wrongfig text') : 'text', given ? (given[1] ? '✓ right' : '✗ wrong') : ''));
      body.appendChild(tr);
    });
    t.appendChild(body);
    return t;
  }

  function ledgerTable(r, task) {
    var given = r[10];
    var judged = given !== null || r[11] !== null; // an unparseable reply claimed nothing
    var t = el('table', 'ledger');
    var head = el('tr');
    ['id', 'date', 'type', 'counterparty', 'description', 'category', 'amount', 'gst', 'invoice', 'abn', 'audit'].forEach(function (h, i) {
      head.appendChild(el('th', i >= 1 && i <= 5 || i >= 8 ? 'text' : null, h));
    });
    t.appendChild(el('thead')).appendChild(head);
    var body = el('tbody');
    var seen = {};
    task.rows.forEach(function (row) {
      var id = row[0];
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
        // Columns 2-5 and 9 are numbers into the string table (see drilldown.ts).
        var text = i === 2 || i === 3 || i === 4 || i === 5 || i === 9 ? data.strings[v] : v;
        tr.appendChild(el('td', i === 3 || i === 4 ? 'text desc' : i >= 1 && i <= 5 || i >= 8 ? 'text' : null, text));
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
      tr.classList.toggle('selected', tr.dataset.index === String(r[1]) && tr.dataset.rollout === String(r[2]));
    });
    var task = r[0] >= 0 ? data.tasks[r[0]] : null;
    drill.textContent = '';
    var sec = el('section');
    sec.id = 'drill-panel';
    sec.appendChild(el('h2', null, 'Task ' + r[1] + ', rollout ' + r[2]));
    var meta = el('div', 'meta');
    meta.appendChild(el('span', null, 'reward ' + fmt(r[3])));
    meta.appendChild(el('span', null, 'bas_correct ' + fmt(r[4])));
    meta.appendChild(el('span', null, 'fault_audit ' + fmt(r[5])));
    meta.appendChild(el('span', null, kindText(r)));
    sec.appendChild(meta);
    if (r[6] !== null) sec.appendChild(el('p', 'note', 'This rollout ended with an error (' + r[6] + '): ' + r[7]));
    if (r[11] !== null) sec.appendChild(el('p', 'note', 'The reply could not be parsed: ' + r[11]));
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
      sec.appendChild(el('p', 'note', 'The task configuration is unknown, so the ledger cannot be rebuilt.'));
    }
    sec.appendChild(el('h3', null, 'Reply'));
    var reply = r[8] === null ? '(no reply)' : r[8];
    if (r[8] !== null && r[8].length >= data.maxReplyChars) reply += '\n… (cut at ' + data.maxReplyChars + ' characters; results.jsonl has it all)';
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
