"""The web page's markup, script and style (served by `redline.approve.web`).

Static text: everything the service knows is fetched as JSON and put in with
`textContent`, never as markup.
"""

from __future__ import annotations

import html

LOGIN_PROBLEMS = {
    "wrong-code": "That code is not right.",
    "no-valid-code": "There is no valid code: run `redline pair web` for a new one.",
    "rate-limited": "Too many tries: wait a minute.",
    "locked-out": "Too many wrong codes: locked out for a while.",
}


def login(problem: str) -> str:
    said = LOGIN_PROBLEMS.get(problem, "")
    note = f'<p class="problem" data-testid="problem">{html.escape(said)}</p>' if said else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>redline: log in</title>
<link rel="stylesheet" href="/app.css"></head>
<body><main class="login">
<h1>redline</h1>
<p>Run <code>redline pair web</code> on the machine and enter the code it prints.</p>
{note}
<form method="post" action="/login">
<label>Code <input name="code" autocomplete="one-time-code" autofocus required
  data-testid="code"></label>
<button type="submit" data-testid="login">Log in</button>
</form></main></body></html>
"""


INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>redline: approvals</title>
<link rel="stylesheet" href="/app.css"><script src="/app.js" defer></script></head>
<body>
<header><h1>redline</h1>
<nav><a href="#pending">Waiting</a> <a href="#history">History</a> <a href="#rules">Rules</a>
<a href="#head">Head</a></nav>
<button id="logout" type="button">Log out</button></header>
<main>
<section id="pending"><h2>Waiting for you <span id="count" data-testid="count">0</span></h2>
<p id="status" role="status"></p>
<p id="none" class="none">Nothing is waiting. Requests appear here by themselves.</p>
<div id="cards"></div></section>
<section id="history"><h2>History</h2>
<form id="filters">
<input name="session" placeholder="session"> <input name="tool" placeholder="tool">
<select name="verdict"><option value="">any verdict</option><option>allow</option>
<option>ask</option><option>deny</option></select>
<select name="kind"><option value="">every kind</option>
<option>decision</option><option>outcome</option><option>notice</option></select>
<input name="rule" placeholder="rule id"> <button type="submit">Filter</button></form>
<table class="history"><thead><tr><th>#</th><th>time</th><th>kind</th><th>session</th><th>tool</th>
<th>verdict</th><th>rules</th><th>answer</th><th>call</th></tr></thead>
<tbody id="rows"></tbody></table></section>
<section id="rules"><h2>Rules</h2><div id="catalog"></div></section>
<section id="head"><h2>Log head</h2>
<p>Keep it somewhere else; <code>redline log verify --head SEQ:HASH</code> then tells a
rewritten log. It also goes to your Telegram chat daily and when the service stops.</p>
<p><code id="loghead" data-testid="head"></code></p></section>
</main>
<template id="card"><article class="card" data-testid="held">
<div class="meta"><b class="id"></b> <span class="who"></span> <span class="left"></span></div>
<div class="where">in <code class="cwd" data-testid="cwd"></code></div>
<pre class="command" data-testid="command"></pre><ul class="hits"></ul>
<p class="risk" data-testid="risk" hidden></p>
<ul class="undelivered" data-testid="undelivered"></ul>
<div class="actions">
<select class="scope" data-testid="scope"><option value="once">once</option>
<option value="session">for this session</option><option value="always">always</option></select>
<button class="approve" type="button" data-testid="approve">Approve</button>
<input class="reason" placeholder="reason (told to the agent)" data-testid="reason">
<button class="reject" type="button" data-testid="reject">Reject</button></div>
</article></template>
</body></html>
"""

SCRIPT = """'use strict';
let csrf = null, version = -1, offset = 0;
const $ = (s, el = document) => el.querySelector(s);
const text = (el, value) => { el.textContent = value == null ? '' : String(value); return el; };
const make = (tag, value) => text(document.createElement(tag), value);
const sleep = ms => new Promise(r => setTimeout(r, ms));

async function api(path, options) {
  const response = await fetch(path, Object.assign({credentials: 'same-origin'}, options));
  if (response.status === 401) { location.href = '/login'; throw new Error('logged out'); }
  return response;
}

async function send(path, body) {
  return api(path, {method: 'POST', body: JSON.stringify(body),
    headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf}});
}

function left(deadline) {
  const s = Math.max(0, Math.round(deadline - (Date.now() / 1000 + offset)));
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s left`;
}

function card(row) {
  const node = $('#card').content.firstElementChild.cloneNode(true);
  node.dataset.id = row.id;
  text($('.id', node), row.id);
  text($('.who', node), `${row.kind} · agent ${row.agent || '-'} · session ` +
    `${row.session || '-'} · context ${row.context || '-'} · ${row.tool || ''}`);
  const l = $('.left', node); l.dataset.deadline = row.deadline; text(l, left(row.deadline));
  text($('.cwd', node), row.cwd || '(no workdir given)');
  text($('.command', node), row.shown);
  for (const failed of row.undelivered || []) $('.undelivered', node).append(
    make('li', `not delivered to ${failed.channel} ${failed.chat}: ${failed.error}`));
  for (const hit of row.hits) $('.hits', node).append(make('li', `${hit.id}: ${hit.description}`));
  if (!row.hits.length && row.reason_asked) $('.hits', node).append(make('li', row.reason_asked));
  if (row.risk) { const r = $('.risk', node); text(r, row.risk); r.hidden = false; }
  if (row.kind === 'proposal') $('.scope', node).remove();
  $('.approve', node).onclick = () => answer(row.id, 'approve',
    {scope: $('.scope', node) ? $('.scope', node).value : 'once'});
  $('.reject', node).onclick = () => answer(row.id, 'reject', {reason: $('.reason', node).value});
  return node;
}

function renderPending(rows) {
  const cards = $('#cards');
  cards.replaceChildren(...rows.map(card));
  text($('#count'), rows.length);
  $('#none').hidden = rows.length > 0;
}

async function answer(id, verb, body) {
  const response = await send(`/api/held/${encodeURIComponent(id)}/${verb}`, body);
  const data = await response.json();
  text($('#status'), response.ok ? `${id}: ${data.state}` : `${id}: ${data.error}`);
  loadHistory(); loadHead();
}

async function live() {
  for (;;) {
    try {
      const response = await api(`/api/pending?since=${version}&wait=20`);
      const data = await response.json();
      offset = data.now - Date.now() / 1000;
      version = data.version;
      renderPending(data.pending);
    } catch (e) { await sleep(1000); }
  }
}

async function loadHistory() {
  const params = new URLSearchParams(new FormData($('#filters')));
  for (const [k, v] of [...params]) if (!v) params.delete(k);
  const data = await (await api(`/api/history?${params}`)).json();
  $('#rows').replaceChildren(...data.history.map(e => {
    const tr = document.createElement('tr');
    const who = e.outcome ? `${e.outcome} ${e.approved_by || ''} ${e.channel || ''}` : '';
    const cells = [e.seq, e.time, e.kind, e.session, e.tool, e.verdict,
      e.rules.join(' '), e.kind === 'notice' ? e.reason : who, JSON.stringify(e.args)];
    cells.forEach((v, i) => {
      const td = make('td', v); td.dataset.label = LABELS[i]; tr.append(td);
    });
    return tr;
  }));
}

const LABELS = ['#', 'time', 'kind', 'session', 'tool', 'verdict', 'rules', 'answer', 'call'];

async function loadHead() {
  const data = await (await api('/api/head')).json();
  text($('#loghead'), data.head ? data.head.head : 'the log is empty');
}

async function loadRules() {
  const data = await (await api('/api/rules')).json();
  $('#catalog').replaceChildren(...data.rules.map(rule => {
    const box = document.createElement('details');
    box.append(make('summary', `${rule.id} (${rule.severity}): ${rule.description}`));
    box.append(make('p', `Repair: ${rule.repair}`));
    const ex = document.createElement('ul');
    for (const m of rule.must_match) ex.append(make('li', `matches: ${m}`));
    for (const m of rule.must_not_match) ex.append(make('li', `does not match: ${m}`));
    box.append(ex);
    return box;
  }));
}

async function boot() {
  const session = await api('/api/session');
  csrf = (await session.json()).csrf;
  $('#filters').onsubmit = event => { event.preventDefault(); loadHistory(); };
  $('#logout').onclick = async () => { await send('/logout', {}); location.href = '/login'; };
  setInterval(() => document.querySelectorAll('.left').forEach(
    el => text(el, left(Number(el.dataset.deadline)))), 1000);
  live(); loadHistory(); loadRules(); loadHead();
}
boot();
"""

STYLE = """* { box-sizing: border-box; }
body { font: 15px/1.4 system-ui, sans-serif; margin: 0; color: #1b1b1b; }
header { display: flex; flex-wrap: wrap; gap: .5em 1.5em; align-items: center; padding: .5em 1em;
  background: #222; color: #fff; }
header a { color: #ddd; } header h1 { font-size: 1.2em; margin: 0; }
main { padding: 0 1em 2em; max-width: 70em; }
.login { max-width: 26em; margin: 4em auto; padding: 0 1em; }
.problem { color: #a00; }
.card { border: 1px solid #ccc; border-left: 4px solid #c80; padding: .6em .8em; margin: .6em 0; }
.card pre { background: #f4f4f4; padding: .5em; white-space: pre-wrap; word-break: break-all; }
.meta { color: #555; } .left { float: right; }
.where code, #loghead, summary, li { overflow-wrap: anywhere; }
.undelivered { color: #a00; }
.actions { display: flex; gap: .5em; flex-wrap: wrap; }
.actions .reason { flex: 1; min-width: 10em; }
#filters { display: flex; flex-wrap: wrap; gap: .3em; }
#filters input, #filters select { min-width: 0; max-width: 100%; }
.none { color: #666; } table { border-collapse: collapse; font-size: 13px; }
td, th { border-bottom: 1px solid #ddd; padding: .2em .4em; text-align: left;
  vertical-align: top; max-width: 28em; overflow-wrap: anywhere; }
@media (max-width: 40em) {
  /* A phone: each history row is a block of labelled lines, never wider than the screen. */
  table.history, .history tbody, .history tr, .history td { display: block; max-width: 100%; }
  .history thead { display: none; }
  .history tr { border-bottom: 2px solid #ccc; padding: .3em 0; }
  .history td { border: 0; padding: .05em 0; }
  .history td::before { content: attr(data-label) ": "; color: #666; }
  .history td:last-child { font-family: monospace; white-space: pre-wrap; }
}
"""
