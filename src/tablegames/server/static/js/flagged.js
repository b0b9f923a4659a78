// The back office's flagged players (issue 27): the live detector's alerts (GET /detect/alerts), each new one
// pushed over the staff socket (/ws/staff: its first message the staff token) and announced in a live region,
// the evidence rounds recalled (GET /rounds/{id}, told by the one narrator), and an acknowledge button only
// where GET /staff/me's "may" list has detect.ack. Every figure is the server's; nothing is decided here.

import { escapeHtml } from "./format.js";
import { narrate } from "./narrate.js";
import { S } from "./state.js";

const $ = (id) => document.getElementById(id);
let ctx = null; // {call, token, may, fail, say} from office.js
let socket = null;
let retry = null;
let alerts = [];

/** Start the view: the list, then the pushes. ``office``: the page's call/token/may/fail/say. */
export async function startFlagged(office) {
  ctx = office;
  if (!S.games.length) S.games = await office.call("GET", "/games").catch(() => []);
  await loadFlagged();
  connect();
}

/** Stop the pushes (logged out). */
export function stopFlagged() {
  ctx = null;
  clearTimeout(retry);
  if (socket) socket.close();
  socket = null;
  alerts = [];
}

export async function loadFlagged() {
  if (!ctx) return;
  alerts = await ctx.call("GET", "/detect/alerts?last=100");
  render();
}

function connect() {
  if (!ctx || socket) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/staff`);
  socket = ws;
  ws.addEventListener("open", () => ws.send(JSON.stringify({ type: "auth", token: ctx ? ctx.token() : "" })));
  ws.addEventListener("message", (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "ready") $("flagged-list").dataset.live = "1";
    if (msg.type === "alert") pushed(msg.alert);
  });
  ws.addEventListener("close", (ev) => {
    if (socket === ws) socket = null;
    if ($("flagged-list")) delete $("flagged-list").dataset.live;
    if (ctx && ev.code !== 4401 && ev.code !== 4403) {
      // the page reconnects and re-reads the list: an alert missed meanwhile is listed
      retry = setTimeout(() => loadFlagged().then(connect, ctx.fail), 3000);
    }
  });
}

function pushed(alert) {
  alerts = [alert, ...alerts.filter((a) => a.id !== alert.id)];
  render();
  $("flagged-live").textContent =
    `Alert: ${alert.player} flagged at ${alert.game}, scenario ${alert.scenario}${alert.partner ? ` with ${alert.partner}` : ""} (log10 M ${alert.log10_evidence.toFixed(2)}).`;
}

function render() {
  const box = $("flagged-list");
  if (!alerts.length) {
    box.replaceChildren(Object.assign(document.createElement("p"), { className: "muted", textContent: "No player flagged." }));
    return;
  }
  const list = document.createElement("div");
  list.className = "rows";
  for (const a of alerts) list.appendChild(alertRow(a));
  box.replaceChildren(list);
}

function alertRow(a) {
  const div = document.createElement("div");
  div.className = "row flagged";
  div.dataset.testid = `alert-${a.id}`;
  const text = document.createElement("span");
  text.className = "grow";
  const ack = a.acknowledged_by
    ? ` · acknowledged by ${escapeHtml(a.acknowledged_by)} ${new Date(a.acknowledged_at * 1000).toLocaleString()}`
    : ` · <b class="status-paused">new</b>`;
  text.innerHTML =
    `<b>${escapeHtml(a.player)}</b> · ${escapeHtml(S.games.find((g) => g.key === a.game)?.title || a.game)} · ` +
    `scenario <b>${escapeHtml(a.scenario)}</b>${a.partner ? ` with <b>${escapeHtml(a.partner)}</b>` : ""} · flagged at hand ${a.hand} (round ${a.round_id}) · ` +
    `log10 M ${a.log10_evidence.toFixed(2)} ≥ ${Math.log10(a.threshold).toFixed(2)} · ` +
    `${a.hands} hands, ${a.mistakes} mistakes, ${a.supported} agreeing with the hidden cards · ` +
    `${new Date(a.created_at * 1000).toLocaleString()}${ack}`;
  div.appendChild(text);
  const rounds = document.createElement("span");
  rounds.className = "evidence";
  rounds.append("Evidence rounds: ");
  for (const rid of a.evidence_rounds) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "btn small ghost";
    b.textContent = `#${rid}`;
    b.dataset.testid = `evidence-${rid}`;
    b.addEventListener("click", () => recall(rid).catch(ctx.fail));
    rounds.appendChild(b);
  }
  div.appendChild(rounds);
  if (!a.acknowledged_by && ctx && ctx.may("detect.ack")) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "btn small";
    b.textContent = "Acknowledge";
    b.dataset.testid = `ack-${a.id}`;
    b.addEventListener("click", () => acknowledge(a.id).catch(ctx.fail));
    div.appendChild(b);
  }
  return div;
}

async function acknowledge(id) {
  const got = await ctx.call("POST", `/detect/alerts/${id}/ack`, {});
  alerts = alerts.map((a) => (a.id === id ? got : a));
  render();
  ctx.say(`Alert ${id} acknowledged.`);
}

/** A round of the evidence, told by the narrator the players' recall uses. */
async function recall(rid) {
  const r = await ctx.call("GET", `/rounds/${rid}`);
  const occupants = Object.fromEntries(r.players.map((p) => [String(p.seat), p.player]));
  const c = { game: r.game, occupants, ruleSummary: r.rule_summary };
  $("flagged-round").hidden = false;
  $("flagged-round").innerHTML =
    `<h3>Round ${r.round_id} · ${escapeHtml(r.table)}</h3>` +
    `<ol class="recall-events">${r.events.map((e) => `<li>${narrate(e, c)}</li>`).join("")}</ol>`;
}
