// My round history and the recall of a finished round (GET /history, GET /rounds/{id}): every step told by
// the one narrator (narrate.js), the players' money and the provably-fair record.

import { api, getToken } from "./api.js";
import { cardText } from "./cards.js";
import { escapeHtml, money } from "./format.js";
import { narrate } from "./narrate.js";
import { $, S, gameTitle, meterTitle, when } from "./state.js";

export async function loadHistory() {
  if (!S.me) return;
  try {
    S.history = await api("GET", "/history?last=15"); // your own rounds: the token says whose
    renderHistory();
  } catch {
    /* history is best-effort */
  }
}

/** Download the player's hand history (GET /history/export: the last 1000 rounds, oldest first) as a file. */
export async function downloadHistory(format) {
  const res = await fetch(`/history/export?format=${format}&last=1000`, {
    headers: { Authorization: `Bearer ${getToken() || ""}` },
  });
  if (!res.ok) throw new Error(`the hand history could not be exported (${res.status})`);
  const name = /filename="([^"]+)"/.exec(res.headers.get("Content-Disposition") || "");
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = name ? name[1] : `hand-history.${format}`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function renderHistory() {
  const ul = $("history");
  ul.replaceChildren();
  if (!S.history.length) {
    ul.innerHTML = `<li class="muted">No rounds yet.</li>`;
    return;
  }
  for (const row of S.history) {
    const me = (row.players || []).find((p) => p.player === S.me.name);
    const net = me ? me.net : 0;
    const li = document.createElement("li");
    li.dataset.roundId = String(row.round_id);
    li.innerHTML = `<span>#${row.round_id} ${escapeHtml(gameTitle(row.game))} · round ${row.round_no}</span>
      <span class="net ${net > 0 ? "pos" : net < 0 ? "neg" : ""}">${money(net, { sign: true })}</span>`;
    li.addEventListener("click", () => openRecall(row.round_id));
    ul.appendChild(li);
  }
}

/** The provably-fair record of a round (server seed revealed after the round, its commitment, ...). */
function fairnessHtml(f) {
  if (!f || typeof f !== "object") return "";
  // a list's item in words: a dealt card as "#3 K♦ → seat 1", any other record as its values (issue 24: the
  // recall showed "dealt [object Object]")
  const item = (x) => {
    if (!x || typeof x !== "object") return String(x);
    if ("position" in x && "card" in x) return `#${x.position} ${cardText(x.card)}${x.to ? ` → ${x.to}` : ""}`;
    return Object.values(x).map(String).join(" ");
  };
  const rows = [];
  const add = (k, v) => {
    if (v && typeof v === "object" && !Array.isArray(v)) for (const [k2, v2] of Object.entries(v)) add(`${k}.${k2}`, v2);
    else rows.push(`<tr><th>${escapeHtml(k)}</th><td class="mono">${escapeHtml(Array.isArray(v) ? v.map(item).join(", ") : String(v))}</td></tr>`);
  };
  for (const [k, v] of Object.entries(f)) {
    if (k !== "client_seeds" || !Array.isArray(v)) add(k, v);
    else
      for (const e of v) // each committed seat: its seed, or dropped (not revealed in time); docs/protocol.md
        add(`seat ${e.seat} seed`, `${e.seed === null ? "dropped (not revealed)" : `“${e.seed}”`} · SHA-256 ${e.seed_hash} · committed #${e.committed}${e.revealed === null ? "" : `, revealed #${e.revealed}`}`);
  }
  return `<h3>Provably fair</h3><p class="muted">The deck was sealed by the commitment before the deal; the revealed
    server seed reproduces it (<code>tablegames verify</code>).</p><table class="fairness">${rows.join("")}</table>`;
}

function recallHtml(r) {
  const players = (r.players || [])
    .map(
      (p) => `<tr><td>${p.seat}</td><td>${escapeHtml(p.player)}</td><td>${money(p.staked)}</td><td>${money(p.returned)}</td>
        <td class="${p.net > 0 ? "pos" : p.net < 0 ? "neg" : ""}">${money(p.net, { sign: true })}</td>
        <td>${p.balance_before == null ? "" : `${money(p.balance_before)} → ${money(p.balance_after)}`}</td></tr>`,
    )
    .join("");
  const jackpot = (r.jackpot || [])
    .map(
      (j) =>
        `<tr><td>${escapeHtml(j.kind)}</td><td>${escapeHtml(meterTitle(r.game, j.meter))}</td><td>${money(j.amount)}</td><td>${escapeHtml(
          j.player || "",
        )}</td></tr>`,
    )
    .join("");
  const ctx = {
    game: r.game,
    occupants: Object.fromEntries((r.players || []).map((p) => [String(p.seat), p.player])),
    ruleSummary: r.rule_summary,
  };
  return `
      <h2>Round #${r.round_id} · ${escapeHtml(gameTitle(r.game))} · ${escapeHtml(r.table || "")}</h2>
      <p>${escapeHtml(when(r.started))} → ${escapeHtml(when(r.settled_at))} · ${escapeHtml(r.status || "")}${
        r.recovered ? " · completed after a restart" : ""
      } · house ${money(r.house_net, { sign: true })}</p>
      <p class="muted">Rules: ${escapeHtml(r.rule_summary || "")}</p>
      <table class="players"><tr><th>Seat</th><th>Player</th><th>Staked</th><th>Returned</th><th>Net</th><th>Balance</th></tr>${players}</table>
      ${jackpot ? `<h3>Jackpot</h3><table><tr><th>Entry</th><th>Meter</th><th>Amount</th><th>Player</th></tr>${jackpot}</table>` : ""}
      ${fairnessHtml(r.fairness)}
      <h3>Every step</h3>
      <ol class="recall-events">${(r.events || []).map((e) => `<li>${narrate(e, ctx)}</li>`).join("")}</ol>
      <div class="form-row"><button class="btn" id="recall-close" type="button">Close</button></div>`;
}

/** A table's pay tables and rules (GET /tables/{id}/rules), as the server words them: sections of rows. */
export function ruleCardHtml(card) {
  const sections = (card.sections || [])
    .map(
      (s) => `<table class="paytable"><caption>${escapeHtml(s.title)}</caption>${s.rows
        .map((r) => `<tr><th scope="row">${escapeHtml(r.label)}</th><td>${escapeHtml(r.value)}</td></tr>`)
        .join("")}</table>`,
    )
    .join("");
  return `<h2>${escapeHtml(card.title)}: pay table and rules</h2>
      <p class="muted" data-testid="rule-summary">${escapeHtml(card.summary[0].toUpperCase() + card.summary.slice(1))}.</p>
      <div class="paytables" data-testid="paytables">${sections}</div>
      <div class="form-row"><button class="btn" id="recall-close" type="button">Close</button></div>`;
}

/** Show a table's rule card in the sheet (the focus goes back to what opened it when it closes). */
export async function openRuleCard(tableId) {
  await openSheet(async () => ruleCardHtml(await api("GET", `/tables/${tableId}/rules`)));
}

async function openSheet(build) {
  const sheet = $("recall-sheet");
  const opener = document.activeElement;
  try {
    sheet.innerHTML = await build();
  } catch (err) {
    sheet.innerHTML = `<p class="error">${escapeHtml(err.message)}</p><button class="btn" id="recall-close" type="button">Close</button>`;
  }
  $("recall").hidden = false;
  const close = $("recall-close");
  close.addEventListener("click", () => {
    $("recall").hidden = true;
    if (opener && opener.focus) opener.focus();
  });
  close.focus();
}

export async function openRecall(roundId) {
  await openSheet(async () => recallHtml(await api("GET", `/rounds/${roundId}`)));
}
