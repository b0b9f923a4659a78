// The back office (/office, issue 25): staff log in and manage tables, jackpots, players, approvals, the audit
// trail and the daily reports. The server checks every permission; this page shows what GET /staff/me says
// the role may do (its "may" list) and nothing else. No rule is decided here.

import { ApiError, requestId } from "./api.js";
import { startFlagged, stopFlagged } from "./flagged.js";
import { escapeHtml, money, parseDollars } from "./format.js";

const TOKEN_KEY = "tablegames.staff";
const $ = (id) => document.getElementById(id);
let me = null; // {name, role, may}
let oneTime = ""; // a one-time password just used to log in: the old one of the password it is replaced by

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** A REST call with the staff session; JSON in and out (``raw``: the Response, for downloads). */
async function call(method, path, body, raw = false) {
  const headers = { Accept: "application/json" };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.ok && raw) return res;
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw new ApiError(res.status, err.code, err.message || `HTTP ${res.status}`);
  }
  return data;
}

function say(text) {
  $("office-notice").textContent = text;
  $("office-error").textContent = "";
}

function fail(err) {
  $("office-error").textContent = err instanceof ApiError ? `${err.message} (${err.code})` : String(err);
  if (err instanceof ApiError && err.status === 401) loggedOut();
}

/** Run ``fn`` and show its refusal, if any, in words. */
async function guarded(fn) {
  try {
    await fn();
  } catch (err) {
    fail(err);
  }
}

const may = (action) => !!me && me.may.includes(action);

function button(label, testid, onClick, cls = "btn small") {
  const b = document.createElement("button");
  b.type = "button";
  b.className = cls;
  b.textContent = label;
  b.dataset.testid = testid;
  b.addEventListener("click", () => guarded(onClick));
  return b;
}

function input(placeholder, testid, cls = "") {
  const i = document.createElement("input");
  i.placeholder = placeholder;
  i.setAttribute("aria-label", placeholder);
  i.dataset.testid = testid;
  if (cls) i.className = cls;
  return i;
}

function row(html) {
  const div = document.createElement("div");
  div.className = "row";
  const text = document.createElement("span");
  text.className = "grow";
  text.innerHTML = html;
  div.appendChild(text);
  return div;
}

function rows(box, items, make, empty) {
  const list = document.createElement("div");
  list.className = "rows";
  for (const item of items) list.appendChild(make(item));
  box.replaceChildren(items.length ? list : Object.assign(document.createElement("p"), { className: "muted", textContent: empty }));
}

// --- login ----------------------------------------------------------------------------------------------------

async function login(ev) {
  ev.preventDefault();
  await guarded(async () => {
    const got = await call("POST", "/staff/login", { name: $("login-name").value.trim(), password: $("login-password").value });
    sessionStorage.setItem(TOKEN_KEY, got.token);
    oneTime = got.must_change ? $("login-password").value : "";
    const last = got.previous_login_at ? new Date(got.previous_login_at * 1000).toLocaleString() : "never";
    say(`Logged in as ${got.name} (${got.role}). Previous login: ${last}.`);
    $("login-password").value = "";
    if (got.must_change) {
      $("login-form").hidden = true;
      $("password-form").hidden = false;
      return;
    }
    await start();
  });
}

async function setPassword(ev) {
  ev.preventDefault();
  await guarded(async () => {
    await call("POST", "/staff/password", { old: oneTime, new: $("password-new").value });
    $("password-form").hidden = true;
    oneTime = "";
    say("Password set.");
    await start();
  });
}

function loggedOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  me = null;
  stopFlagged();
  $("login-panel").hidden = false;
  $("login-form").hidden = false;
  $("office-who").hidden = true;
  $("office-logout").hidden = true;
  for (const p of document.querySelectorAll("section[data-needs]")) p.hidden = true;
}

async function logout() {
  await guarded(() => call("POST", "/staff/logout"));
  loggedOut();
  say("Logged out.");
}

/** After login (or a reload with a live session): what this role may do decides the panels shown. */
async function start() {
  me = await call("GET", "/staff/me");
  $("login-panel").hidden = true;
  $("office-who").hidden = false;
  $("office-who").textContent = `${me.name} · ${me.role}`;
  $("office-logout").hidden = false;
  for (const p of document.querySelectorAll("[data-needs]")) p.hidden = p.dataset.needs !== "" && !may(p.dataset.needs);
  const loads = [loadTables(), loadJackpots()];
  if (may("adjust.view")) loads.push(loadApprovals());
  if (may("audit.read")) loads.push(loadAudit());
  if (may("table.open")) loads.push(loadGames());
  if (may("detect.read")) loads.push(startFlagged({ call, token, may, fail, say }));
  await Promise.all(loads.map((p) => p.catch(fail)));
}

// --- tables ---------------------------------------------------------------------------------------------------

async function loadTables() {
  const tables = await call("GET", "/tables");
  rows($("tables-list"), tables, tableRow, "No tables.");
}

function tableRow(t) {
  const status = t.status || "open";
  const div = row(
    `<b>${escapeHtml(t.name)}</b> · ${escapeHtml(t.game)} · ${money(t.min_bet)}–${money(t.max_bet)} · ` +
      `<span class="status-${escapeHtml(status)}" data-testid="table-status-${t.table_id}">${escapeHtml(status)}</span>`,
  );
  if (status === "closed") return div;
  if (may("table.limits")) {
    const lo = input("Min $", `min-${t.table_id}`);
    const hi = input("Max $", `max-${t.table_id}`);
    lo.value = (t.min_bet / 100).toString();
    hi.value = (t.max_bet / 100).toString();
    div.append(lo, hi, button("Set limits", `limits-${t.table_id}`, async () => {
      const body = { min_bet: parseDollars(lo.value), max_bet: parseDollars(hi.value) };
      if (body.min_bet === null || body.max_bet === null) throw new Error("limits are amounts in dollars, like 5 or 2.50");
      await call("PATCH", `/tables/${t.table_id}`, body);
      say(`Limits of ${t.name} set.`);
      await loadTables();
    }));
  }
  if (may("table.status")) {
    const reason = input("Reason", `status-reason-${t.table_id}`, "wide");
    div.appendChild(reason);
    for (const change of status === "paused" ? ["resume", "close"] : ["pause", "close"]) {
      const label = { pause: "Pause", resume: "Resume", close: "Close" }[change];
      div.appendChild(button(label, `${change}-${t.table_id}`, async () => {
        await call("POST", `/tables/${t.table_id}/${change}`, { reason: reason.value });
        say(`${t.name}: ${change}d.`);
        await loadTables();
      }, "btn small ghost"));
    }
  }
  return div;
}

async function loadGames() {
  const games = await call("GET", "/games");
  $("open-game").replaceChildren(...games.map((g) => new Option(g.title, g.key)));
}

async function openTable(ev) {
  ev.preventDefault();
  await guarded(async () => {
    const body = {
      game: $("open-game").value,
      name: $("open-name").value.trim(),
      min_bet: parseDollars($("open-min").value),
      max_bet: parseDollars($("open-max").value),
    };
    const got = await call("POST", "/tables", body);
    say(`Table ${got.name} opened.`);
    await loadTables();
  });
}

async function loadJackpots() {
  const hits = (await call("GET", "/jackpots/history?last=200")).filter((e) => e.kind === "hit").slice(0, 10);
  $("jackpots-hits").replaceChildren(
    ...hits.map((e) => row(`Hit #${e.hit_seq} · ${escapeHtml(e.game)} ${escapeHtml(e.meter)} · ${money(e.amount)} to ${escapeHtml(e.player || "?")} · round ${e.round_id}`)),
  );
  const meters = await call("GET", "/jackpots");
  rows($("jackpots-list"), meters, (m) => row(`${escapeHtml(m.game)} · <b>${escapeHtml(m.meter)}</b> · ${money(m.value)} (reset ${money(m.reset)}, ${escapeHtml(m.share)} of each feeding wager, above reset ${money(m.value - m.reset)})`), "No linked meters.");
}

// --- players and adjustments --------------------------------------------------------------------------------

async function searchPlayers(ev) {
  ev.preventDefault();
  await guarded(async () => {
    const q = encodeURIComponent($("players-search").value.trim());
    const players = await call("GET", `/players?search=${q}`);
    rows($("players-list"), players, playerRow, "No player found.");
  });
}

function playerRow(p) {
  const flag = p.suspended ? ` · <b class="status-paused" data-testid="suspended-${escapeHtml(p.name)}">suspended</b>` : "";
  const div = row(`<b>${escapeHtml(p.name)}</b> · balance <span data-testid="player-balance-${escapeHtml(p.name)}">${money(p.balance)}</span>${flag}`);
  const history = document.createElement("div");
  history.className = "rows";
  history.style.flexBasis = "100%";
  div.appendChild(button("History", `history-${p.name}`, async () => {
    const rounds = await call("GET", `/history?player=${encodeURIComponent(p.name)}&last=10`);
    history.replaceChildren(...rounds.map((r) => {
      const me = r.players.find((x) => x.player === p.name) || {};
      return row(`round ${r.round_id} · ${escapeHtml(r.table)} · ${escapeHtml(r.settled_at || r.status)} · net ${money(me.net, { sign: true })}`);
    }));
    if (!rounds.length) history.replaceChildren(row("No rounds."));
  }, "btn small ghost"));
  if (may("player.adjust")) {
    const amount = input("Amount $ (−$ to debit)", `adjust-amount-${p.name}`);
    const reason = input("Reason", `adjust-reason-${p.name}`, "wide");
    div.append(amount, reason, button("Adjust", `adjust-${p.name}`, async () => {
      const text = amount.value.trim();
      const cents = parseDollars(text.replace(/^[-−]/, ""));
      if (cents === null) throw new Error("an amount in dollars, like 25 or −10.50");
      const signed = /^[-−]/.test(text) ? -cents : cents;
      const got = await call("POST", `/players/${encodeURIComponent(p.name)}/adjustments`, {
        amount: signed, reason: reason.value, request_id: requestId("adj"),
      });
      say(got.status === "pending"
        ? `Adjustment of ${money(signed, { sign: true })} for ${p.name} waits for a second staff member's approval.`
        : `Adjustment of ${money(signed, { sign: true })} for ${p.name} applied.`);
      if (may("adjust.view")) await loadApprovals();
    }));
  }
  if (may("player.suspend")) {
    const why = input("Reason to suspend or reinstate", `suspend-reason-${p.name}`, "wide");
    div.append(why, button(p.suspended ? "Reinstate" : "Suspend", `suspend-${p.name}`, async () => {
      await call("PUT", `/players/${encodeURIComponent(p.name)}/suspension`, { suspended: !p.suspended, reason: why.value });
      say(`${p.name}: ${p.suspended ? "reinstated" : "suspended"}.`);
      $("players-search").value = p.name;
      $("players-form").requestSubmit();
    }, "btn small ghost"));
  }
  div.appendChild(history);
  return div;
}

async function loadApprovals() {
  const waiting = await call("GET", "/adjustments?status=pending");
  rows($("approvals-list"), waiting, (a) => {
    const div = row(
      `#${a.id} · <b>${escapeHtml(a.player)}</b> · ${money(a.amount, { sign: true })} · “${escapeHtml(a.reason)}” · ` +
        `asked by ${escapeHtml(a.requested_by)}`,
    );
    if (may("adjust.decide")) {
      const reason = input("Reason", `decide-reason-${a.id}`, "wide");
      div.append(reason, button("Approve", `approve-${a.id}`, async () => {
        await call("POST", `/adjustments/${a.id}/approve`, { reason: reason.value });
        say(`Adjustment #${a.id} approved and applied.`);
        await loadApprovals();
      }), button("Reject", `reject-${a.id}`, async () => {
        await call("POST", `/adjustments/${a.id}/reject`, { reason: reason.value });
        say(`Adjustment #${a.id} rejected.`);
        await loadApprovals();
      }, "btn small ghost"));
    }
    return div;
  }, "Nothing waits for approval.");
}

// --- audit trail and reports -----------------------------------------------------------------------------------

function auditQuery() {
  const q = new URLSearchParams();
  if ($("audit-actor").value.trim()) q.set("actor", $("audit-actor").value.trim());
  if ($("audit-action").value.trim()) q.set("action", $("audit-action").value.trim());
  return q;
}

async function loadAudit(ev) {
  if (ev) ev.preventDefault();
  const entries = await call("GET", `/audit?${auditQuery()}`);
  const table = document.createElement("table");
  table.innerHTML = "<thead><tr><th>#</th><th>When</th><th>Who</th><th>What</th><th>Subject</th><th>Change</th><th>Reason</th></tr></thead>";
  const body = document.createElement("tbody");
  for (const e of entries) {
    const tr = document.createElement("tr");
    tr.dataset.testid = `audit-${e.action}`;
    const change = `${e.before === null ? "" : JSON.stringify(e.before) + " → "}${e.after === null ? "" : JSON.stringify(e.after)}`;
    tr.innerHTML = [e.id, new Date(e.at * 1000).toLocaleString(), e.actor, e.action, e.subject, change, e.reason]
      .map((v, i) => `<td${i === 5 ? ' class="change"' : ""}>${escapeHtml(v)}</td>`)
      .join("");
    body.appendChild(tr);
  }
  table.appendChild(body);
  $("audit-list").replaceChildren(entries.length ? table : Object.assign(document.createElement("p"), { textContent: "No entries." }));
}

/** Download a file the server makes for the staff session (the link itself could not carry the token). */
async function download(path, filename) {
  const res = await call("GET", path, undefined, true);
  const url = URL.createObjectURL(await res.blob());
  const a = Object.assign(document.createElement("a"), { href: url, download: filename });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  say(`Downloaded ${filename}.`);
}

async function verify() {
  const v = await call("GET", "/audit/verify");
  if (v.ok) say(`Audit trail intact: ${v.entries} entries; ledger: ${v.sealed} transactions sealed, ${v.unsealed} not sealed yet.`);
  else fail(new Error(`BROKEN: ${v.problem}`));
}

async function report(ev) {
  ev.preventDefault();
  await guarded(async () => {
    const day = $("reports-day").value;
    const name = $("reports-name").value;
    const fmt = $("reports-format").value;
    const q = new URLSearchParams({ format: fmt });
    if (day) q.set("day", day);
    await download(`/reports/${name}?${q}`, `${name}-${day || "today"}.${fmt}`);
  });
}

// --- wiring ---------------------------------------------------------------------------------------------------

$("login-form").addEventListener("submit", login);
$("password-form").addEventListener("submit", setPassword);
$("office-logout").addEventListener("click", logout);
$("open-form").addEventListener("submit", openTable);
$("players-form").addEventListener("submit", searchPlayers);
$("audit-form").addEventListener("submit", (ev) => guarded(() => loadAudit(ev)));
$("audit-csv").addEventListener("click", () => guarded(() => download(`/audit/export?format=csv&${auditQuery()}`, "audit.csv")));
$("audit-json").addEventListener("click", () => guarded(() => download(`/audit/export?format=json&${auditQuery()}`, "audit.json")));
$("audit-verify").addEventListener("click", () => guarded(verify));
$("reports-form").addEventListener("submit", report);
if (token()) start().catch(() => loggedOut());
else loggedOut();
