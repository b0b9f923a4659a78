// The lobby: register, the wallet, the jackpot meters and the open tables of every game GET /games lists.

import { openRuleCard } from "./recall.js";
import { api, requestId, setToken } from "./api.js";
import { cardSVG } from "./cards.js";
import { escapeHtml, money, parseDollars } from "./format.js";
import { refreshProtection, registrationLimits } from "./protection.js";
import { $, S, gameTitle, loadMe, meterTitle, renderWho, setBalance, showError, toast } from "./state.js";

/** The lobby; ``greeting``: how the player is welcomed (a new player is not welcomed "back"). */
export async function enterLobby(greeting = "Welcome back") {
  $("room").hidden = true;
  $("lobby").hidden = false;
  document.body.classList.add("in-lobby");
  $("where").textContent = "";
  const fan = $("hero-fan");
  if (!fan.childElementCount) for (const c of ["As", "Kh", "Js", "Qd", "Tc"]) fan.appendChild(cardSVG(c));
  $("hero-games").textContent = S.games.map((g) => g.title).join(" · ");
  try {
    await loadMe();
  } catch (err) {
    showError(err);
  }
  renderWho();
  $("register-form").hidden = !!S.me;
  $("welcome-row").hidden = !S.me;
  $("wallet-panel").hidden = !S.me;
  if (S.me) $("welcome-text").innerHTML = `${greeting}, <b>${escapeHtml(S.me.name)}</b>. Pick a table below.`;
  await Promise.all([refreshLobby(), refreshProtection()]);
}

export async function refreshLobby() {
  try {
    const [tables, meters] = await Promise.all([api("GET", "/tables"), api("GET", "/jackpots").catch(() => [])]);
    S.tables = tables;
    renderGames(tables);
    renderLobbyMeters(meters);
  } catch (err) {
    $("lobby-error").textContent = err.message;
  }
}

function renderLobbyMeters(meters) {
  const box = $("lobby-meters");
  box.replaceChildren();
  $("jackpot-panel").hidden = !meters.length;
  const sign = document.createElement("div");
  sign.className = "meter-sign lobby-sign";
  for (const m of meters) {
    const d = document.createElement("div");
    d.className = `meter meter-${m.meter}`;
    const [game, meter] = [gameTitle(m.game), meterTitle(m.game, m.meter)];
    const name = meter.startsWith(game) ? meter : `${game} · ${meter}`;
    d.innerHTML = `<div class="meter-name">${escapeHtml(name)}</div><div class="meter-value">${money(m.value)}</div>`;
    sign.appendChild(d);
  }
  box.appendChild(sign);
}

function tableRow(t) {
  const taken = Object.keys(t.occupied || {}).length;
  const li = document.createElement("li");
  li.innerHTML = `<span class="t-name">${escapeHtml(t.name)}</span>
    <span class="t-meta">${taken}/${t.seats} seats · ${money(t.min_bet)}–${money(t.max_bet)} · ${escapeHtml(
      t.rule_summary === "standard rules" ? "standard rules" : "house rules",
    )}${t.status && t.status !== "open" ? ` · <b>${escapeHtml(t.status)}</b>` : ""}</span>`;
  const pays = document.createElement("button");
  pays.className = "btn small ghost";
  pays.type = "button";
  pays.textContent = "Pay table";
  pays.dataset.testid = `paytable-${t.table_id}`;
  pays.setAttribute("aria-label", `Pay table and rules of ${t.name}`);
  pays.addEventListener("click", () => openRuleCard(t.table_id));
  li.appendChild(pays);
  const b = document.createElement("button");
  b.className = "btn small primary";
  b.textContent = "Join";
  b.dataset.testid = `join-${t.table_id}`;
  b.disabled = !S.me;
  const watch = document.createElement("button");
  watch.className = "btn small ghost";
  watch.type = "button";
  watch.textContent = "Watch";
  watch.dataset.testid = `watch-${t.table_id}`;
  watch.setAttribute("aria-label", `Watch ${t.name} without a seat`);
  watch.addEventListener("click", () => (location.hash = `#/watch/${t.table_id}`));
  li.appendChild(watch);
  b.addEventListener("click", () => {
    location.hash = `#/table/${t.table_id}`;
  });
  li.appendChild(b);
  return li;
}

function renderGames(tables) {
  const box = $("games");
  box.replaceChildren();
  for (const game of S.games) {
    const card = document.createElement("div");
    card.className = "game-card";
    card.dataset.game = game.key;
    card.innerHTML = `<h3>${escapeHtml(game.title)}</h3><div class="tag">${escapeHtml(game.tagline)}</div>`;
    const ul = document.createElement("ul");
    ul.className = "table-list";
    const mine = tables.filter((t) => t.game === game.key);
    if (!mine.length) ul.innerHTML = `<li class="empty-note">No table open yet.</li>`;
    for (const t of mine) ul.appendChild(tableRow(t));
    card.appendChild(ul);
    box.appendChild(card);
  }
}

export async function register(ev) {
  ev.preventDefault();
  const name = $("register-name").value.trim();
  if (!name) return;
  const password = $("register-password").value;
  $("lobby-error").textContent = "";
  try {
    // a password is optional: with one, the player signs in again from any browser (POST /players/login)
    const body = password ? { name, password } : { name };
    const limits = registrationLimits(); // (issue 26) offered at registration, set at once
    if (Object.keys(limits).length) body.limits = limits;
    const res = await api("POST", "/players", body);
    setToken(res.token);
    S.me = { player_id: res.player_id, name: res.name, balance: res.balance };
    toast(`Welcome, <b>${escapeHtml(res.name)}</b>! Buy in to get chips.`, "win");
    await enterLobby("Welcome");
  } catch (err) {
    $("lobby-error").textContent = err.message;
  }
}

/** Sign in with the name and password given at registration (a new token; the old browser's ends). */
export async function signIn() {
  const name = $("register-name").value.trim();
  const password = $("register-password").value;
  if (!name || !password) {
    $("lobby-error").textContent = "Type your name and password to sign in.";
    return;
  }
  $("lobby-error").textContent = "";
  try {
    const res = await api("POST", "/players/login", { name, password });
    setToken(res.token);
    S.me = null;
    await enterLobby();
    toast(`Welcome back, <b>${escapeHtml(res.name)}</b>.`, "win");
  } catch (err) {
    $("lobby-error").textContent = err.message;
  }
}

export async function walletOp(kind) {
  const cents = parseDollars($("wallet-amount").value);
  if (cents === null) {
    toast("Enter an amount in dollars, e.g. 1000 or 12.50", "error");
    return;
  }
  try {
    const res = await api("POST", `/wallet/${kind}`, { amount: cents, request_id: requestId(kind) });
    setBalance(res.balance);
    toast(`${kind === "buy-in" ? "Bought in" : "Cashed out"} ${money(cents)}. Balance ${money(res.balance)}.`, "win");
  } catch (err) {
    showError(err);
  }
}
