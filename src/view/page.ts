/**
 * The one page of `bas view`: its style and script inline (nothing is fetched from elsewhere,
 * so it works offline), allowed to run by a nonce of this answer only (the server's
 * Content-Security-Policy refuses any other script). Views are hash routes, so every view has
 * a URL that reopens it:
 *
 *   #/                              the runs (sortable: #/?sort=reward&dir=desc)
 *   #/run/ID?errored=1&missed=…     one run: its report and its rollouts, filtered and paged
 *   #/run/ID/rollout/I:R            one rollout
 *   #/compare/A/B                   two runs paired, and the tasks they disagree on most
 *   #/compare/A/B/task/I:R          rollout R of task I in both, side by side
 *   #/sweep/ID                      a sweep: its table as bas sweep shows it, and its points' runs
 *
 * Everything from a run folder goes into the document through textContent, never as HTML.
 */

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; }
header { background: #20324a; color: #fff; padding: 8px 16px; display: flex; gap: 16px; align-items: baseline; }
header a { color: #fff; font-weight: bold; text-decoration: none; }
main { padding: 12px 16px; }
h1 { font-size: 20px; margin: 8px 0; overflow-wrap: anywhere; }
h2 { font-size: 16px; margin: 16px 0 6px; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }
th.sortable { cursor: pointer; user-select: none; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #fff; border: 1px solid #ddd; padding: 8px; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.status-running { color: #0a6b1f; font-weight: bold; }
.status-interrupted, .status-failed, .status-damaged { color: #a11; font-weight: bold; }
.problem { color: #a11; }
.note { color: #555; }
tr.found td.mark { background: #dff3e3; }
tr.missed td.mark { background: #fde2e1; }
tr.wrong td.mark { background: #fff1cc; }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 6px 0; }
.pager { margin: 6px 0; display: flex; gap: 10px; align-items: center; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.side > div { min-width: 0; }
.small { font-size: 12px; color: #555; }
`;

/** The page's script (plain JavaScript, inlined). */
const SCRIPT = String.raw`
(function () {
  'use strict';
  var token = new URLSearchParams(location.search).get('token');
  var app = document.getElementById('app');
  var timer = null;
  var generation = 0;
  var CODES = ['gst_on_gst_free', 'gst_miscalculated', 'duplicate_invoice', 'outside_period', 'missing_abn_over_threshold'];

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === 'text') e.textContent = attrs[k] === null || attrs[k] === undefined ? '' : String(attrs[k]);
      else if (k === 'cls') e.className = attrs[k];
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c !== null && c !== undefined) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  function api(path, params) {
    var q = new URLSearchParams();
    for (var k in params || {}) if (params[k] !== undefined && params[k] !== null && params[k] !== '') q.set(k, params[k]);
    var headers = token ? { Authorization: 'Bearer ' + token } : {};
    return fetch('/api/' + path + (q.toString() ? '?' + q.toString() : ''), { headers: headers }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) { var e = new Error((body && body.error && body.error.message) || ('HTTP ' + r.status)); e.status = r.status; throw e; }
        return body;
      });
    });
  }
  function enc(id) { return encodeURIComponent(id); }
  function fmt(v, d) { return v === null || v === undefined ? '–' : Number(v).toFixed(d === undefined ? 3 : d); }
  function int(v) { return v === null || v === undefined ? '–' : Number(v).toLocaleString('en-US'); }
  function est(e) { return !e || e.mean === null ? '–' : fmt(e.mean) + (e.ci95 ? ' [' + fmt(e.ci95[0]) + ', ' + fmt(e.ci95[1]) + ']' : ''); }
  function mb(v) { return (v / 1048576).toFixed(v < 10485760 ? 1 : 0) + ' MB'; }
  function usd(v) { return v === null || v === undefined ? '–' : '$' + Number(v).toFixed(v < 1 ? 4 : 2); }
  // A figure that may be incomplete (requests in flight at a stop, replies without usage) says so.
  function atLeast(text, f) { return f.cost_at_least && text !== '–' ? 'at least ' + text : text; }
  function later(fn, ms) { var g = generation; timer = setTimeout(function () { if (g === generation) fn(); }, ms); }
  function fail(where, err) { where.appendChild(el('p', { cls: 'problem', text: String(err && err.message || err) })); }
  function parseHash() {
    var h = location.hash.replace(/^#/, '') || '/';
    var qi = h.indexOf('?');
    var path = qi < 0 ? h : h.slice(0, qi);
    var params = new URLSearchParams(qi < 0 ? '' : h.slice(qi + 1));
    return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: params };
  }

  // ---- the runs ----
  var COLUMNS = [
    ['id', 'run'], ['status', 'status'], ['model', 'model'], ['endpoint', 'endpoint'], ['task', 'task'],
    ['sampling', 'sampling'], ['progress', 'rollouts'], ['reward', 'reward [95% CI]'], ['errors', 'errors'],
    ['tokens', 'tokens'], ['cost', 'cost'], ['started', 'started']
  ];
  function sortValue(r, key) {
    var f = r.figures;
    switch (key) {
      case 'progress': return r.recorded === null ? -1 : r.recorded;
      case 'reward': return f && f.reward.mean !== null ? f.reward.mean : -1;
      case 'errors': return f ? f.errored : -1;
      case 'tokens': return f ? f.tokens : -1;
      case 'cost': return f && f.cost_usd !== null ? f.cost_usd : -1;
      case 'started': return r.started_at || '';
      default: return String(r[key] === null || r[key] === undefined ? '' : r[key]);
    }
  }
  function runsView(params) {
    var sort = params.get('sort') || 'started';
    var dir = params.get('dir') || 'desc';
    var picked = [];
    var head = el('h1', { text: 'Runs' });
    var info = el('p', { cls: 'small' });
    var compare = el('a', { id: 'compare-link', cls: 'small' });
    var sweeps = el('div');
    var table = el('table', { id: 'runs' });
    var thead = el('tr');
    COLUMNS.forEach(function (c) {
      thead.appendChild(el('th', { cls: 'sortable', 'data-key': c[0], text: c[1] + (sort === c[0] ? (dir === 'asc' ? ' ▲' : ' ▼') : ''), onclick: function () {
        var d = sort === c[0] && dir === 'desc' ? 'asc' : 'desc';
        location.hash = '#/?sort=' + c[0] + '&dir=' + d;
      } }));
    });
    thead.insertBefore(el('th', { text: 'pick' }), thead.firstChild);
    var tbody = el('tbody');
    table.appendChild(el('thead', null, [thead]));
    table.appendChild(tbody);
    clear(app).appendChild(el('div', null, [head, info, compare, sweeps, table]));
    function showCompare() {
      clear(compare);
      if (picked.length === 2) { compare.setAttribute('href', '#/compare/' + enc(picked[0]) + '/' + enc(picked[1])); compare.textContent = 'compare the two runs picked'; }
      else { compare.removeAttribute('href'); compare.textContent = 'pick two runs to compare them'; }
    }
    function draw(body) {
      info.textContent = body.runs.length + ' run(s) under ' + body.root + (body.truncated ? ' (the walk stopped at its bounds: some folders are not listed)' : '') +
        (body.unnamed && body.unnamed.length ? '; not opened, as their names are not UTF-8 (rename them): ' + body.unnamed.join(', ') : '');
      clear(sweeps);
      if (body.sweeps.length) {
        sweeps.appendChild(el('h2', { text: 'Sweeps' }));
        var st = el('table', { id: 'sweeps' }, [el('tr', null, ['sweep', 'status', 'models', 'points complete', 'created'].map(function (t) { return el('th', { text: t }); }))]);
        body.sweeps.forEach(function (s) {
          st.appendChild(el('tr', null, [el('td', null, [el('a', { href: '#/sweep/' + enc(s.id), text: s.id })]), el('td', { cls: 'status-' + s.status, text: s.status }),
            el('td', { text: s.problem || s.models.join(', ') }), el('td', { cls: 'num', text: s.complete + ' of ' + s.points }), el('td', { text: s.created_at || '' })]));
        });
        sweeps.appendChild(st);
        sweeps.appendChild(el('h2', { text: 'Runs' }));
      }
      var rows = body.runs.slice().sort(function (a, b) {
        var x = sortValue(a, sort), y = sortValue(b, sort);
        var c = x < y ? -1 : x > y ? 1 : 0;
        return dir === 'asc' ? c : -c;
      });
      clear(tbody);
      rows.forEach(function (r) {
        var f = r.figures;
        var box = el('input', { type: 'checkbox', 'data-run': r.id });
        box.checked = picked.indexOf(r.id) >= 0;
        box.addEventListener('change', function () {
          picked = picked.filter(function (x) { return x !== r.id; });
          if (box.checked) picked.push(r.id);
          if (picked.length > 2) picked.shift();
          showCompare();
          Array.prototype.forEach.call(tbody.querySelectorAll('input'), function (i) { i.checked = picked.indexOf(i.getAttribute('data-run')) >= 0; });
        });
        var progress = (r.recorded === null ? '–' : int(r.recorded)) + (r.expected !== null ? ' / ' + int(r.expected) : '');
        tbody.appendChild(el('tr', { 'data-run': r.id }, [
          el('td', null, [box]),
          el('td', null, [el('a', { href: '#/run/' + enc(r.id), text: r.id }), r.sweep ? el('div', { cls: 'small', text: 'sweep ' + r.sweep }) : null, r.problem ? el('div', { cls: 'problem', text: r.problem }) : null]),
          el('td', { cls: 'status-' + r.status, text: r.status }),
          el('td', { text: r.model }), el('td', { text: r.endpoint || 'unknown' }), el('td', { text: r.task }),
          el('td', { text: r.sampling }), el('td', { cls: 'num progress', text: progress }),
          el('td', { cls: 'num reward', text: f ? est(f.reward) : '–' }),
          el('td', { cls: 'num', text: f ? int(f.errored) : '–' }), el('td', { cls: 'num', text: f ? atLeast(int(f.tokens), f) : '–' }),
          el('td', { cls: 'num', text: f ? atLeast(usd(f.cost_usd), f) : '–' }), el('td', { text: r.started_at || '' })
        ]));
      });
    }
    function load() {
      api('runs').then(function (body) { draw(body); later(load, 1500); }, function (err) { fail(app, err); later(load, 3000); });
    }
    showCompare();
    load();
  }

  // ---- one run ----
  var FILTERS = ['errored', 'bas_wrong', 'missed', 'wrong', 'reward_min', 'reward_max', 'consistency', 'offset'];
  function runView(id, params) {
    var title = el('h1', { text: id });
    var status = el('p', { id: 'progress' });
    var problem = el('div');
    var prov = el('table', { id: 'provenance' });
    var notes = el('div');
    var text = el('pre', { id: 'report' });
    var listBox = el('div', { id: 'rollouts' });
    var reading = el('p', { id: 'reading', cls: 'note' });
    clear(app).appendChild(el('div', null, [el('p', null, [el('a', { href: '#/', text: '← runs' })]), title, status, problem,
      el('h2', { text: 'Provenance' }), prov, notes, el('h2', { text: 'Summary (as bas report shows it)' }), text,
      el('h2', { text: 'Rollouts' }), reading, listBox]));
    var filter = {};
    FILTERS.forEach(function (k) { if (params.get(k)) filter[k] = params.get(k); });
    function setFilter(k, v) {
      var q = new URLSearchParams();
      FILTERS.forEach(function (f) {
        if (f === 'offset' && k !== 'offset') return; // a new filter starts at the first page
        var val = f === k ? v : filter[f];
        if (val) q.set(f, val);
      });
      location.hash = '#/run/' + enc(id) + (q.toString() ? '?' + q.toString() : '');
    }
    function select(k, options) {
      var s = el('select', { name: k, onchange: function () { setFilter(k, s.value); } });
      options.forEach(function (o) { var opt = el('option', { value: o[0], text: o[1] }); if ((filter[k] || '') === o[0]) opt.selected = true; s.appendChild(opt); });
      return el('label', null, [k.replace('_', ' ') + ' ', s]);
    }
    function number(k) {
      var i = el('input', { name: k, type: 'number', step: '0.05', min: '0', max: '1', size: '5' });
      i.value = filter[k] || '';
      i.addEventListener('change', function () { setFilter(k, i.value); });
      return el('label', null, [k.replace('_', ' ') + ' ', i]);
    }
    var codeOptions = [['', 'any']].concat(CODES.map(function (c) { return [c, c]; }));
    var filters = el('div', { cls: 'filters' }, [
      select('errored', [['', 'any'], ['1', 'errored'], ['0', 'not errored']]),
      select('bas_wrong', [['', 'any'], ['1', 'BAS wrong']]),
      select('missed', codeOptions), select('wrong', codeOptions),
      number('reward_min'), number('reward_max'),
      select('consistency', [['', 'any'], ['consistent', 'consistent'], ['inconsistent', 'inconsistent'], ['unknown', 'unknown']]),
      el('a', { href: '#/run/' + enc(id), text: 'clear filters' })
    ]);
    var pager = el('div', { cls: 'pager' });
    var table = el('table', { id: 'rollout-list' });
    listBox.appendChild(filters); listBox.appendChild(pager); listBox.appendChild(table);
    var offset = Number(filter.offset || 0);
    function loadList() {
      var q = { run: id, offset: offset, limit: 50 };
      FILTERS.forEach(function (k) { if (k !== 'offset' && filter[k]) q[k] = filter[k]; });
      return api('rollouts', q).then(function (b) {
        clear(pager);
        var rd = b.index && b.index.reading;
        reading.textContent = rd ? 'reading results.jsonl for the first time: ' + mb(rd.read) + ' of ' + mb(rd.of) + ' (' + Math.floor(100 * rd.read / Math.max(1, rd.of)) + '%); the rollouts read so far are listed, and the list follows' : '';
        if (rd) later(loadList, 1000);
        var to = Math.min(b.matching, offset + b.rows.length);
        pager.appendChild(el('span', { id: 'matching', text: (b.matching ? (offset + 1) + '–' + to : '0') + ' of ' + int(b.matching) + ' matching (' + int(b.total) + ' rollouts)' }));
        if (offset > 0) pager.appendChild(el('a', { href: '#', text: '← previous', onclick: function (e) { e.preventDefault(); setFilter('offset', String(Math.max(0, offset - 50))); } }));
        if (to < b.matching) pager.appendChild(el('a', { href: '#', text: 'next →', onclick: function (e) { e.preventDefault(); setFilter('offset', String(offset + 50)); } }));
        clear(table).appendChild(el('tr', null, ['task', 'rollout', 'reward', 'outcome', 'missed', 'wrongly flagged', 'consistent'].map(function (t) { return el('th', { text: t }); })));
        b.rows.forEach(function (r) {
          var outcome = r.errored ? 'errored' : r.bas_correct ? 'BAS right' : 'BAS wrong';
          table.appendChild(el('tr', null, [
            el('td', null, [el('a', { href: '#/run/' + enc(id) + '/rollout/' + r.index + ':' + r.rollout, text: String(r.index) })]),
            el('td', { cls: 'num', text: r.rollout }), el('td', { cls: 'num', text: fmt(r.reward) }), el('td', { text: outcome }),
            el('td', { text: r.missed.join(', ') }), el('td', { text: r.wrong.join(', ') }),
            el('td', { text: r.consistent === null ? '–' : r.consistent ? 'yes' : 'no' })
          ]));
        });
      }, function (err) { clear(pager); fail(pager, err); });
    }
    function showProgress(p) {
      var f = p.figures;
      status.className = 'status-' + p.status;
      status.textContent = p.status + ' · ' + (p.recorded === null ? '–' : int(p.recorded)) + (p.expected !== null ? ' of ' + int(p.expected) : '') + ' rollouts recorded' +
        (f ? ' · reward ' + est(f.reward) + ' · ' + int(f.errored) + ' errored' : '');
    }
    function poll() {
      api('progress', { run: id }).then(function (p) {
        showProgress(p);
        loadList();
        if (p.status === 'running') later(poll, 1500);
        else loadReport();
      }, function () { later(poll, 3000); });
    }
    function loadReport() {
      return api('run', { run: id }).then(function (r) {
        title.textContent = r.model + ' · ' + r.id;
        clear(problem);
        if (r.problem) problem.appendChild(el('p', { cls: 'problem', text: r.problem }));
        if (r.index && r.index.damaged_lines) {
          problem.appendChild(el('p', { cls: 'problem', text: 'results.jsonl has ' + r.index.damaged_lines + ' damaged line(s); the rest is shown:' }));
          var ul = el('ul');
          r.index.damage.forEach(function (d) { ul.appendChild(el('li', { cls: 'problem', text: 'line ' + d.line + ' ' + d.reason })); });
          problem.appendChild(ul);
        }
        clear(prov);
        (r.provenance || []).forEach(function (kv) { prov.appendChild(el('tr', null, [el('th', { text: kv[0] }), el('td', { text: kv[1] })])); });
        clear(notes);
        r.notes.forEach(function (n) { notes.appendChild(el('p', { cls: 'note', text: 'note: ' + n })); });
        text.textContent = r.summary_pending && !r.text ? '(the summary is being read from the results file; it shows here when it is done)' : r.text || '(no summary: ' + (r.problem || 'no rollouts yet') + ')';
        if (r.summary_pending) later(loadReport, 2000);
        return r;
      });
    }
    loadReport().then(function (r) {
      showProgress({ status: r.status, recorded: r.index ? r.index.rollouts : null, expected: r.index ? r.index.expected : null, figures: r.report ? { reward: r.report.summary.reward, errored: r.report.summary.counts.errored } : null });
      if (r.status === 'running') later(poll, 1500);
    }, function (err) { fail(problem, err); });
    loadList();
  }

  // ---- one sweep ----
  function sweepView(id) {
    var head = el('p', { id: 'sweep-status' });
    var settings = el('table', { id: 'sweep-settings' });
    var text = el('pre', { id: 'sweep-table' });
    var points = el('table', { id: 'sweep-points' });
    clear(app).appendChild(el('div', null, [el('p', null, [el('a', { href: '#/', text: '← runs' })]), el('h1', { text: 'sweep ' + id }), head,
      el('h2', { text: 'Settings' }), settings, el('h2', { text: 'Points (as bas sweep shows them)' }), text, el('h2', { text: 'Runs' }), points]));
    function load() {
      api('sweep', { sweep: id }).then(function (s) {
        var running = s.points.some(function (p) { return p.status === 'running'; });
        head.textContent = 'models: ' + s.models.join(', ') + ' · ' + s.points.length + ' point(s)' + (s.created_at ? ' · created ' + s.created_at : '') + (running ? ' · running' : '');
        clear(settings);
        s.settings.forEach(function (kv) { settings.appendChild(el('tr', null, [el('th', { text: kv[0] }), el('td', { text: kv[1] })])); });
        text.textContent = s.text || '(no point has rollouts yet)';
        clear(points).appendChild(el('tr', null, ['run', 'model', 'point', 'status', 'rollouts', 'reward [95% CI]'].map(function (t) { return el('th', { text: t }); })));
        s.points.forEach(function (p) {
          points.appendChild(el('tr', null, [
            el('td', null, [p.status === 'not started' ? el('span', { text: p.run }) : el('a', { href: '#/run/' + enc(p.run), text: p.run })]),
            el('td', { text: p.model || '' }), el('td', { text: p.point }),
            el('td', { cls: 'status-' + p.status, text: p.status }),
            el('td', { cls: 'num', text: (p.recorded === null ? '–' : int(p.recorded)) + (p.expected !== null ? ' of ' + int(p.expected) : '') }),
            el('td', { text: p.problem ? p.problem : est(p.reward) })
          ]));
        });
        if (running) later(load, 1500);
      }, function (err) { fail(head, err); });
    }
    load();
  }

  // ---- one rollout ----
  function rolloutBox(d) {
    var box = el('div', { cls: 'rollout' });
    var outcome = d.error_type !== null ? 'errored (' + d.error_type + ')' : d.unparseable !== null ? 'unparseable reply' : d.bas_correct === 1 ? 'BAS right' : 'BAS wrong';
    box.appendChild(el('h2', { text: 'task ' + d.index + ', rollout ' + d.rollout + (d.model ? ' · ' + d.model : '') }));
    var facts = el('table', { cls: 'facts' });
    function fact(k, v) { facts.appendChild(el('tr', null, [el('th', { text: k }), el('td', { text: v })])); }
    fact('scores', 'reward ' + fmt(d.reward) + ' · bas_correct ' + fmt(d.bas_correct) + ' · fault_audit ' + fmt(d.fault_audit) + ' · ' + outcome);
    if (d.consistency) fact('consistency', d.consistency.bas_consistent === 1 ? 'the stated BAS is the one its own faults imply' : 'the stated BAS is not the one its own faults imply' + (d.consistency.bas_error ? ' (' + d.consistency.bas_error + ')' : ''));
    if (d.error_type !== null) fact('error', d.error_type + ': ' + (d.error_message || ''));
    if (d.unparseable !== null) fact('unparsed', d.unparseable);
    fact('attempts', d.attempts === null ? 'unknown' : String(d.attempts));
    fact('latency', (d.latency_ms === null ? 'unknown' : int(d.latency_ms) + ' ms') + (d.ttft_ms !== null ? ' · first token ' + int(d.ttft_ms) + ' ms' : ''));
    fact('finish', d.finish_reason || 'unknown');
    fact('usage', d.usage ? 'prompt ' + int(d.usage.prompt_tokens) + ' · completion ' + int(d.usage.completion_tokens) + ' · total ' + int(d.usage.total_tokens) +
      (d.usage.reasoning_tokens ? ' · reasoning ' + int(d.usage.reasoning_tokens) : '') + (d.usage.cached_tokens ? ' · cached ' + int(d.usage.cached_tokens) : '') : 'not reported');
    if (d.task) { fact('business', d.task.business); fact('quarter', d.task.period[0] + ' to ' + d.task.period[1]); }
    box.appendChild(facts);
    if (d.task) {
      box.appendChild(el('h2', { text: 'BAS figures' }));
      var fig = el('table', { cls: 'figures' }, [el('tr', null, ['label', 'expected', 'given', ''].map(function (t) { return el('th', { text: t }); }))]);
      Object.keys(d.task.expected_bas).forEach(function (l) {
        var g = d.figures ? d.figures[l] : null;
        fig.appendChild(el('tr', null, [el('td', { text: l }), el('td', { cls: 'num', text: d.task.expected_bas[l] }), el('td', { cls: 'num', text: g ? g.given : '–' }), el('td', { text: g ? (g.right ? 'right' : 'wrong') : '' })]));
      });
      box.appendChild(fig);
      box.appendChild(el('h2', { text: 'Ledger (the key’s faults found, missed or wrongly flagged)' }));
      var judged = d.faults !== null;
      var claims = d.faults || {};
      var led = el('table', { cls: 'ledger' }, [el('tr', null, ['id', 'date', 'type', 'counterparty', 'description', 'category', 'amount', 'gst', 'invoice', 'abn', 'audit'].map(function (t) { return el('th', { text: t }); }))]);
      var seen = {};
      d.task.rows.forEach(function (row) {
        seen[row.id] = true;
        var exp = Object.prototype.hasOwnProperty.call(d.task.expected_faults, row.id) ? d.task.expected_faults[row.id] : [];
        var got = Object.prototype.hasOwnProperty.call(claims, row.id) ? claims[row.id] : [];
        var marks = [], cls = '';
        exp.forEach(function (c) { if (!judged) { marks.push('key ' + c); } else if (got.indexOf(c) >= 0) { marks.push('found ' + c); cls = cls || 'found'; } else { marks.push('missed ' + c); cls = 'missed'; } });
        got.forEach(function (c) { if (exp.indexOf(c) < 0) { marks.push('wrongly flagged ' + c); if (cls !== 'missed') cls = 'wrong'; } });
        led.appendChild(el('tr', { cls: cls, 'data-row': row.id }, [row.id, row.date, row.type, row.counterparty, row.description, row.category, row.amount, row.gst, row.invoice, row.abn].map(function (v, i) {
          return el('td', { cls: i === 6 || i === 7 ? 'num' : '', text: v });
        }).concat([el('td', { cls: 'mark', text: marks.join(', ') })])));
      });
      box.appendChild(led);
      var extra = Object.keys(claims).filter(function (k) { return !seen[k]; });
      if (extra.length) box.appendChild(el('p', { cls: 'problem', text: 'flags on ids that are not in the ledger: ' + extra.join(', ') }));
    } else box.appendChild(el('p', { cls: 'note', text: 'ledger not shown: the task cannot be rebuilt (unknown configuration or generator)' }));
    box.appendChild(el('h2', { text: 'Reply' + (d.reply !== null ? ' (' + int(d.reply.length) + ' characters' + (d.reply.length >= d.max_reply_chars ? ', cut; results.jsonl has it all' : '') + ')' : '') }));
    box.appendChild(el('pre', { cls: 'reply', text: d.reply === null ? '(none)' : d.reply }));
    return box;
  }
  function rolloutView(id, pair) {
    var ir = pair.split(':');
    var back = el('p', null, [el('a', { href: '#/run/' + enc(id), text: '← ' + id })]);
    var where = el('div', { id: 'rollout' });
    clear(app).appendChild(el('div', null, [back, where]));
    function load() {
      api('rollout', { run: id, index: ir[0], rollout: ir[1] || '0' }).then(function (d) { clear(where).appendChild(rolloutBox(d)); }, function (err) {
        clear(where); fail(where, err);
        // 409: the results file is still being read, and this rollout is not among those read yet.
        if (err.status === 409) later(load, 1000);
      });
    }
    load();
  }

  // ---- two runs ----
  function compareView(a, b) {
    var out = el('pre', { id: 'comparison' });
    var dis = el('div', { id: 'disagreements' });
    clear(app).appendChild(el('div', null, [el('p', null, [el('a', { href: '#/', text: '← runs' })]), el('h1', { text: 'A: ' + a + '  ·  B: ' + b }), out, el('h2', { text: 'Tasks where they disagree most' }), dis]));
    out.textContent = 'pairing the two runs…';
    api('compare', { a: a, b: b }).then(function (c) {
      out.textContent = c.text;
      var t = el('table', null, [el('tr', null, ['task', 'A reward', 'B reward', 'B − A', ''].map(function (x) { return el('th', { text: x }); }))]);
      c.disagreements.forEach(function (d) {
        t.appendChild(el('tr', null, [el('td', { cls: 'num', text: d.index }), el('td', { cls: 'num', text: fmt(d.a) }), el('td', { cls: 'num', text: fmt(d.b) }), el('td', { cls: 'num', text: (d.diff >= 0 ? '+' : '') + fmt(d.diff) }),
          el('td', null, [el('a', { href: '#/compare/' + enc(a) + '/' + enc(b) + '/task/' + d.index + ':0', text: 'side by side' })])]));
      });
      dis.appendChild(el('p', { cls: 'small', text: int(c.paired_tasks) + ' task(s) completed in both; mean reward per task, the largest differences first' }));
      dis.appendChild(t);
    }, function (err) { out.textContent = ''; fail(out, err); });
  }
  function sideView(a, b, pair) {
    var ir = pair.split(':');
    var left = el('div', { id: 'side-a' }), right = el('div', { id: 'side-b' });
    clear(app).appendChild(el('div', null, [el('p', null, [el('a', { href: '#/compare/' + enc(a) + '/' + enc(b), text: '← comparison' })]),
      el('div', { cls: 'side' }, [left, right])]));
    [[a, left, 'A'], [b, right, 'B']].forEach(function (x) {
      x[1].appendChild(el('h1', { text: x[2] + ': ' + x[0] }));
      api('rollout', { run: x[0], index: ir[0], rollout: ir[1] || '0' }).then(function (d) { x[1].appendChild(rolloutBox(d)); }, function (err) { fail(x[1], err); });
    });
  }

  function route() {
    generation++;
    if (timer) clearTimeout(timer);
    var h = parseHash();
    var p = h.parts;
    if (p[0] === 'run' && p[1] !== undefined && p[2] === 'rollout' && p[3]) return rolloutView(p[1], p[3]);
    if (p[0] === 'run' && p[1] !== undefined) return runView(p[1], h.params);
    if (p[0] === 'compare' && p[1] && p[2] && p[3] === 'task' && p[4]) return sideView(p[1], p[2], p[4]);
    if (p[0] === 'compare' && p[1] && p[2]) return compareView(p[1], p[2]);
    if (p[0] === 'sweep' && p[1] !== undefined) return sweepView(p[1]);
    return runsView(h.params);
  }
  window.addEventListener('hashchange', route);
  route();
})();
`;

/** The page, its script and style allowed by `nonce`. */
export function viewPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bas view</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<header><a href="#/">bas view</a><span>runs, rollouts and comparisons, read from the folder it serves</span></header>
<main id="app"></main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}
