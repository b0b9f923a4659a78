// The page: lobby (register, wallet, tables) and the table room (felt, console, history, log, toasts).
// Talks to the server only through docs/protocol.md; never decides a game outcome itself.

import { ApiError, TableSocket, api, getToken, requestId, setToken } from "./api.js";
import { DENOMINATIONS, cardSVG, cardText, chipSVG, installSprite, parseCode } from "./cards.js";
import {
  GAME_NAMES,
  GAME_TAGLINES,
  METER_NAMES,
  WAGER_NAMES,
  escapeHtml,
  flipOptionText,
  handName,
  money,
  parseDollars,
} from "./format.js";
import { renderTable } from "./table.js";

const $ = (id) => document.getElementById(id);
const GAMES = ["let-it-ride", "one-eyed-flush", "final-count"];
const HINTS_KEY = "tablegames.hints";

const S = {
  me: null, // {player_id, name, balance}
  tables: [],
  // room
  tableId: null,
  table: null,
  sock: null,
  conn: "closed",
  seat: null,
  balance: null,
  occupants: {},
  round: null,
  roundId: null,
  bettingOpen: false,
  deadlineAt: null,
  meters: {},
  per: null, // per-round derived state from events
  hint: null,
  hintsOn: localStorage.getItem(HINTS_KEY) === "1",
  chip: 500,
  draft: null, // {wagers: {name: cents}, option}
  seenCards: new Set(),
  newCards: new Set(),
  history: [],
  lastResultRound: null,
  pendingWager: null,
  decision: null, // the id of the decision awaited now (an act names it)
  nextCommitment: null, // the next round's server-seed commitment (a client seed names it)
  clientSeed: null, // my seed at this table, as the server has it
};

// --- utilities ------------------------------------------------------------------------------------

function toast(text, kind = "info", ms = 4200) {
  const t = document.createElement("div");
  t.className = `toast ${kind}`;
  t.innerHTML = text;
  $("toasts").appendChild(t);
  setTimeout(() => t.remove(), ms);
  return t;
}

function showError(err) {
  const msg = err instanceof ApiError ? err.message : err && err.message ? err.message : String(err);
  toast(escapeHtml(msg), "error", 5000);
}

function setBalance(cents) {
  if (cents === null || cents === undefined) return;
  if (S.me) S.me.balance = cents;
  S.balance = cents;
  $("balance").textContent = money(cents);
  const wb = $("wallet-balance");
  if (wb) wb.textContent = money(cents);
}

function seatName(seat) {
  const name = S.occupants[String(seat)];
  return name ? `${name} (seat ${seat})` : `Seat ${seat}`;
}

function ownerName(owner) {
  const m = /^seat (\d+)$/.exec(owner || "");
  return m ? seatName(Number(m[1])) : owner === "dealer" ? "Dealer" : owner;
}

/** Cards as small inline text chips ("A♥" in red on white; a face-down card as a patterned back). */
function miniCards(codes) {
  return `<span class="mini-cards">${(codes || [])
    .map((c) => {
      const p = parseCode(c);
      if (!p) return `<span class="mc back" title="face down"></span>`;
      return `<span class="mc ${p.red ? "red" : "black"}" data-card="${c}">${escapeHtml(cardText(c))}</span>`;
    })
    .join("")}</span>`;
}

function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

// --- routing ----------------------------------------------------------------------------------------

function route() {
  const m = /^#\/table\/(\d+)/.exec(location.hash);
  if (m && getToken()) enterRoom(Number(m[1]));
  else enterLobby();
}

// --- lobby ------------------------------------------------------------------------------------------

async function loadMe() {
  if (!getToken()) {
    S.me = null;
    return null;
  }
  try {
    S.me = await api("GET", "/me");
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      setToken(null);
      S.me = null;
    } else throw err;
  }
  return S.me;
}

function renderWho() {
  $("who").hidden = !S.me;
  if (S.me) {
    $("who-name").textContent = S.me.name;
    setBalance(S.me.balance);
  }
  $("btn-lobby").hidden = !S.tableId;
}

async function enterLobby() {
  leaveRoom();
  $("room").hidden = true;
  $("lobby").hidden = false;
  document.body.classList.add("in-lobby");
  $("where").textContent = "";
  const fan = $("hero-fan");
  if (!fan.childElementCount) for (const c of ["As", "Kh", "Js", "Qd", "Tc"]) fan.appendChild(cardSVG(c));
  try {
    await loadMe();
  } catch (err) {
    showError(err);
  }
  renderWho();
  $("register-form").hidden = !!S.me;
  $("welcome-row").hidden = !S.me;
  $("wallet-panel").hidden = !S.me;
  if (S.me) $("welcome-text").innerHTML = `Welcome back, <b>${escapeHtml(S.me.name)}</b>. Pick a table below.`;
  await refreshLobby();
}

async function refreshLobby() {
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
    d.innerHTML = `<div class="meter-name">${escapeHtml(
      (GAME_NAMES[m.game] || m.game) + " · " + (METER_NAMES[m.meter] || m.meter),
    )}</div><div class="meter-value">${money(m.value)}</div>`;
    sign.appendChild(d);
  }
  box.appendChild(sign);
}

function renderGames(tables) {
  const box = $("games");
  box.replaceChildren();
  for (const game of GAMES) {
    const card = document.createElement("div");
    card.className = "game-card";
    card.dataset.game = game;
    card.innerHTML = `<h3>${GAME_NAMES[game]}</h3><div class="tag">${escapeHtml(GAME_TAGLINES[game])}</div>`;
    const ul = document.createElement("ul");
    ul.className = "table-list";
    const mine = tables.filter((t) => t.game === game);
    if (!mine.length) ul.innerHTML = `<li class="empty-note">No table open yet.</li>`;
    for (const t of mine) {
      const taken = Object.keys(t.occupied || {}).length;
      const li = document.createElement("li");
      li.innerHTML = `<span class="t-name">${escapeHtml(t.name)}</span>
        <span class="t-meta">${taken}/${t.seats} seats · ${money(t.min_bet)}–${money(t.max_bet)}</span>`;
      const b = document.createElement("button");
      b.className = "btn small primary";
      b.textContent = "Join";
      b.dataset.testid = `join-${t.table_id}`;
      b.disabled = !S.me;
      b.addEventListener("click", () => {
        location.hash = `#/table/${t.table_id}`;
      });
      li.appendChild(b);
      ul.appendChild(li);
    }
    card.appendChild(ul);
    box.appendChild(card);
  }
}

async function register(ev) {
  ev.preventDefault();
  const name = $("register-name").value.trim();
  if (!name) return;
  $("lobby-error").textContent = "";
  try {
    const res = await api("POST", "/players", { name });
    setToken(res.token);
    S.me = { player_id: res.player_id, name: res.name, balance: res.balance };
    toast(`Welcome, <b>${escapeHtml(res.name)}</b>! Buy in to get chips.`, "win");
    await enterLobby();
  } catch (err) {
    $("lobby-error").textContent = err.message;
  }
}

async function walletOp(kind) {
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

// --- room -------------------------------------------------------------------------------------------

function freshPer(roundId) {
  return { roundId, pulled: {}, outcomes: {}, hands: {}, lastActions: {}, announced: new Set() };
}

function leaveRoom() {
  if (S.sock) S.sock.close();
  S.sock = null;
  S.tableId = null;
  S.table = null;
  S.round = null;
  S.roundId = null;
  S.seat = null;
  S.per = null;
  S.hint = null;
  S.seenCards = new Set();
  $("btn-lobby").hidden = true;
}

async function enterRoom(tableId) {
  if (S.tableId === tableId && S.sock) return;
  leaveRoom();
  $("lobby").hidden = true;
  $("room").hidden = false;
  document.body.classList.remove("in-lobby");
  S.tableId = tableId;
  try {
    await loadMe();
  } catch (err) {
    showError(err);
  }
  if (!S.me) {
    location.hash = "#/";
    return;
  }
  renderWho();
  $("btn-lobby").hidden = false;
  $("log").replaceChildren();
  S.per = freshPer(null);
  S.sock = new TableSocket(tableId, { onMessage, onStatus });
  loadHistory();
}

function onStatus(status, code) {
  S.conn = status;
  if (status === "open" && S.hintsOn) S.sock.send({ type: "hints", on: true });
  if (status === "closed") {
    const why = {
      4401: "Your session is not valid: please register again.",
      4409: "This table is open in newer windows: this one was closed.",
      4503: "This table has too many connections right now.",
    };
    toast(why[code] || "No such table.", "error");
    if (code === 4401) setToken(null);
    if (code !== 4409) location.hash = "#/";
  }
  renderConsole();
}

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      S.table = msg.table;
      S.seat = msg.seat ?? null;
      setBalance(msg.balance);
      $("where").innerHTML = `<span class="where-game">${escapeHtml(GAME_NAMES[msg.table.game] || msg.table.game)}</span> · ${escapeHtml(
        msg.table.name,
      )} · limits ${money(msg.table.min_bet)}–${money(msg.table.max_bet)}`;
      if (!S.draft || S.draft.game !== msg.table.game) S.draft = defaultDraft();
      // a (re)connection is sent the current round's events from its start: rebuild what they say
      S.per = freshPer(null);
      S.roundId = null;
      $("log").replaceChildren();
      break;
    case "state":
      onState(msg);
      break;
    case "round_result":
      onResult(msg);
      break;
    case "hint":
      S.hint = S.hintsOn ? msg : null;
      renderConsole();
      return;
    case "ack":
      onAck(msg);
      break;
    case "error":
      if (S.pendingWager && msg.request_id === S.pendingWager) S.pendingWager = null;
      toast(escapeHtml(msg.message || msg.code), "error", 5000);
      break;
    default:
      return;
  }
  render();
}

function defaultDraft() {
  const t = S.table || {};
  const main = Math.max(t.min_bet || 100, Math.min(500, t.max_bet || 500));
  const game = t.game;
  if (game === "let-it-ride") return { game, wagers: { bets: main }, option: "ten-value" };
  return { game, wagers: { main }, option: "ten-value" };
}

function onAck(msg) {
  if (msg.for === "sit") {
    S.seat = msg.seat;
  } else if (msg.for === "leave") {
    S.seat = null;
  } else if (msg.for === "wager") {
    if (msg.request_id === S.pendingWager) S.pendingWager = null;
    setBalance(msg.balance);
  } else if (msg.for === "hints") {
    S.hintsOn = !!msg.on;
  } else if (msg.for === "client_seed") {
    S.clientSeed = msg.seed;
    if (!msg.duplicate) toast(`Client seed set for round ${msg.round_no} and after.`, "info");
  }
}

function onState(msg) {
  if (msg.table_id !== undefined && S.table && msg.table_id !== S.table.table_id) return;
  const newRound = msg.round_id !== S.roundId;
  if (newRound) {
    S.per = freshPer(msg.round_id);
    S.hint = null;
  }
  S.roundId = msg.round_id;
  S.seat = msg.seat ?? null;
  setBalance(msg.balance);
  S.occupants = msg.occupants || {};
  S.round = msg.round || null;
  S.bettingOpen = !!msg.betting_open;
  S.deadlineAt = msg.seconds_left === null || msg.seconds_left === undefined ? null : Date.now() + msg.seconds_left * 1000;
  S.meters = msg.meters || (S.round && S.round.meters) || {};
  S.commitment = msg.commitment || null;
  S.decision = msg.decision ?? null;
  S.nextCommitment = msg.next_commitment ?? null;
  S.clientSeed = msg.client_seed ?? null;
  renderSeed();
  for (const ev of msg.events || []) onEvent(ev);
  if (S.hint && (!S.round || S.round.to_act !== S.seat || S.hint.round_id !== S.roundId)) S.hint = null;
  // cards that appeared since the last state: animated as dealt
  const now = new Set();
  if (S.round && S.round.phase !== "betting") {
    for (const s of S.round.seats) s.cards.forEach((c, i) => c && now.add(`${s.seat}:${i}:${c}`));
  }
  S.newCards = new Set([...now].filter((k) => !S.seenCards.has(k)));
  S.seenCards = now;
}

const ACTION_TEXT = {
  pull: "PULLED",
  ride: "LET IT RIDE",
  stand: "STANDS",
  turn: "TURNS 3RD CARD",
};

function actionText(action) {
  if (action.startsWith("discard")) return "DREW 1";
  return ACTION_TEXT[action] || action.toUpperCase();
}

function log(html) {
  const li = document.createElement("li");
  li.innerHTML = html;
  const ul = $("log");
  ul.appendChild(li);
  while (ul.childElementCount > 120) ul.firstChild.remove();
  ul.scrollTop = ul.scrollHeight;
}

function onEvent(ev) {
  const per = S.per;
  switch (ev.type) {
    case "round_started":
      log(`<b>Round ${ev.round_no}</b> opens: place your bets.`);
      break;
    case "wager_placed":
      log(
        `${escapeHtml(seatName(ev.seat))} bets ${money(ev.amount)} on ${escapeHtml(WAGER_NAMES[ev.wager] || ev.wager)}${
          ev.option ? ` (${escapeHtml(flipOptionText(ev.option))})` : ""
        }`,
      );
      break;
    case "action": {
      per.lastActions[ev.seat] = actionText(ev.action) + (ev.by === "timeout" ? " (TIME)" : "");
      log(`${escapeHtml(seatName(ev.seat))}: <b>${escapeHtml(ev.action)}</b>${ev.by === "timeout" ? " — by timeout" : ""}`);
      break;
    }
    case "settled": {
      (per.outcomes[ev.seat] ||= {})[ev.wager] = ev.outcome;
      if (ev.outcome === "pulled") (per.pulled[ev.seat] ||= []).push(ev.wager.replace("bet ", ""));
      else
        log(
          `${escapeHtml(seatName(ev.seat))} ${escapeHtml(WAGER_NAMES[ev.wager] || ev.wager)}: ${escapeHtml(ev.outcome)} ${money(
            ev.returned - ev.staked,
            { sign: true },
          )}${ev.detail ? ` <span class="muted">(${escapeHtml(ev.detail)})</span>` : ""}`,
        );
      break;
    }
    case "hand":
      per.hands[ev.owner] = ev.hand;
      log(`${escapeHtml(ownerName(ev.owner))}: ${escapeHtml(handName(ev.hand))}`);
      break;
    case "cards_revealed":
      if (ev.owner === "community") log(`Community card ${miniCards(ev.cards)}`);
      else if (ev.owner === "dealer") log(`Dealer shows ${miniCards(ev.cards)}`);
      break;
    case "card_discarded":
      if (ev.owner === "dealer") log(`Dealer discards ${miniCards([ev.card])} and draws`);
      break;
    case "jackpot_hit":
      announceJackpot(ev.seat, ev.meter, ev.amount);
      break;
    case "envy_paid":
      announceEnvy(ev.seat, ev.from_seat, ev.hand, ev.amount);
      break;
    case "round_ended":
      log(`Round over.`);
      break;
    default:
      break;
  }
}

function announceJackpot(seat, meter, amount) {
  const key = `jp:${seat}:${meter}`;
  if (S.per.announced.has(key)) return;
  S.per.announced.add(key);
  const who = seat === S.seat ? "YOU HIT" : `${escapeHtml(seatName(seat))} hits`;
  toast(`★ JACKPOT! ${who} the ${escapeHtml(METER_NAMES[meter] || meter)}: <b>${money(amount)}</b>`, "jackpot", 9000);
  log(`<b>JACKPOT</b> ${escapeHtml(seatName(seat))} ${escapeHtml(meter)} ${money(amount)}`);
}

function announceEnvy(seat, fromSeat, hand, amount) {
  const key = `envy:${seat}:${fromSeat}`;
  if (S.per.announced.has(key)) return;
  S.per.announced.add(key);
  const handText = String(hand).replace(/-/g, " ");
  const text =
    seat === S.seat
      ? `ENVY BONUS! ${escapeHtml(seatName(fromSeat))}'s ${escapeHtml(handText)} pays you <b>${money(amount)}</b>`
      : `Envy bonus: ${escapeHtml(seatName(seat))} collects ${money(amount)} on ${escapeHtml(seatName(fromSeat))}'s ${escapeHtml(handText)}`;
  toast(text, "envy", 9000);
  log(text);
}

function onResult(msg) {
  if (S.lastResultRound === msg.round_id) return;
  S.lastResultRound = msg.round_id;
  setBalance(msg.balance);
  if (msg.meters) S.meters = msg.meters;
  for (const e of msg.envy || []) announceEnvy(e.seat, e.from_seat, e.hand, e.amount);
  for (const h of msg.jackpot_hits || []) announceJackpot(h.seat, h.meter, h.amount);
  const mine = (msg.results || []).find((r) => r.seat === S.seat);
  if (mine) {
    const hand = S.per.hands[`seat ${S.seat}`];
    const text =
      mine.net > 0
        ? `You win <b>${money(mine.net)}</b>`
        : mine.net < 0
          ? `You lose ${money(-mine.net)}`
          : "Push — your money back";
    toast(text + (hand ? ` · ${escapeHtml(handName(hand))}` : ""), mine.net > 0 ? "win" : mine.net < 0 ? "lose" : "info");
  }
  loadHistory();
}

// --- scene ------------------------------------------------------------------------------------------

function results() {
  const out = {};
  const r = S.round;
  if (!r || r.phase !== "settled") return out;
  for (const s of r.seats) {
    if (!Object.keys(s.wagers).length || s.returned === null) continue;
    let hand = S.per.hands[`seat ${s.seat}`];
    if (!hand && s.out && r.game === "final-count") hand = "odd total";
    out[s.seat] = { net: s.returned - s.staked, hand, outcomes: S.per.outcomes[s.seat] || {} };
  }
  return out;
}

function myView() {
  return S.round ? S.round.seats.find((s) => s.seat === S.seat) : null;
}

function myWagersInPlay() {
  const v = myView();
  return !!(S.round && S.round.phase !== "settled" && v && Object.keys(v.wagers).length);
}

function canBet() {
  return S.seat !== null && S.bettingOpen && !myWagersInPlay() && !S.pendingWager;
}

function scene() {
  const players = {};
  for (const [seat, name] of Object.entries(S.occupants)) players[seat] = { name };
  const round = S.round
    ? {
        ...S.round,
        seats: S.round.seats.map((s) => ({ ...s, pulled: S.per.pulled[s.seat] || [] })),
      }
    : null;
  const res = results();
  const outcomes = {};
  for (const [seat, r] of Object.entries(res)) outcomes[seat] = r;
  return {
    game: S.table.game,
    seatCount: S.table.seats,
    players,
    mySeat: S.seat,
    round,
    results: outcomes,
    draft: canBet() ? S.draft.wagers : null,
    draftOption: S.draft ? S.draft.option : null,
    phaseOpen: canBet(),
    meters: S.meters,
    rules: S.table.rules || {},
    commitment: S.round && S.round.phase !== "settled" ? S.commitment : null,
    dealerHand: S.per.hands.dealer ? (S.table.game === "final-count" ? `Total ${S.per.hands.dealer}` : S.per.hands.dealer) : null,
    lastActions: S.per.lastActions,
    newCards: S.newCards,
    handlers: { onSit: sit, onSpot: addChip, onCard: (i) => act(`discard ${i}`) },
  };
}

function render() {
  renderFelt();
  renderConsole();
}

function renderFelt() {
  if (!S.table) return;
  const root = $("table-scene");
  const prevMeters = { ...(root._meters || {}) };
  renderTable(root, scene());
  for (const [name, value] of Object.entries(S.meters || {})) {
    if (prevMeters[name] !== undefined && prevMeters[name] !== value) {
      const el = root.querySelector(`.meter[data-meter="${name}"]`);
      if (el) el.classList.add("bump");
    }
  }
  root._meters = { ...S.meters };
  for (const t of root.querySelectorAll("[data-countdown]")) t.textContent = countdownText();
  S.newCards = new Set(); // animate a card's arrival once
}

// --- console: bets and actions -------------------------------------------------------------------------

function countdownText() {
  if (!S.deadlineAt) return "";
  const s = Math.max(0, Math.ceil((S.deadlineAt - Date.now()) / 1000));
  return `${s}s`;
}

function wagerFields(game) {
  if (game === "let-it-ride")
    return [
      { name: "bets", label: "Each bet (×3)", kind: "amount" },
      { name: "bonus", label: "3-Card Bonus", kind: "amount" },
      { name: "progressive", label: "Progressive $1", kind: "fixed", cents: 100 },
    ];
  if (game === "one-eyed-flush")
    return [
      { name: "main", label: "Bet", kind: "amount" },
      { name: "jackpot", label: "Jackpot $1", kind: "fixed", cents: 100 },
      { name: "flip", label: "Flip Card bet", kind: "amount" },
      { name: "flip-option", label: "Flip Card outcome", kind: "option" },
    ];
  return [{ name: "main", label: "Bet", kind: "amount" }];
}

let consoleKey = null;

/** What the console shows now: "connecting", "watch", "bet", "act" or "wait", and the status line. */
function consoleMode() {
  const r = S.round;
  if (S.conn !== "open") return { mode: "connecting", status: S.conn === "reconnecting" ? "Reconnecting…" : "Connecting…" };
  if (S.seat === null) {
    const free = S.table.seats - Object.keys(S.occupants).length;
    return {
      mode: "watch",
      status: free > 0 ? "Choose an open seat: click <b>Sit here</b>." : "The table is full: you are watching.",
    };
  }
  const cd = () => `<b id="countdown">${countdownText()}</b>`;
  if (canBet()) {
    return {
      mode: "bet",
      status:
        S.deadlineAt && r && r.phase === "betting"
          ? `Place your bets · dealing in ${cd()}`
          : "Place your bets: click a chip, then a spot (or type amounts).",
    };
  }
  if (r && r.phase === "deciding" && r.to_act === S.seat && (r.legal_actions || []).length > 0)
    return { mode: "act", status: `Your decision · ${cd()}` };
  if (S.pendingWager) return { mode: "wait", status: "Placing your bets…" };
  if (r && r.phase === "betting") return { mode: "wait", status: `Bets placed · waiting for the others · deal in ${cd()}` };
  if (r && r.phase === "deciding") return { mode: "wait", status: `${escapeHtml(seatName(r.to_act))} is deciding · ${cd()}` };
  return { mode: "wait", status: "Waiting for the next round." };
}

/** The console is rebuilt only when what it offers changes, so typing into a wager field is never lost. */
function renderConsole() {
  const box = $("console");
  if (!box || !S.table) return;
  const { mode, status } = consoleMode();
  const r = S.round;
  const v = myView();
  const key = JSON.stringify([
    mode,
    S.seat,
    S.hintsOn,
    myWagersInPlay(),
    mode === "act" ? [S.roundId, r.stage, r.legal_actions, v && v.cards, S.hint && S.hint.best] : null,
  ]);
  if (key !== consoleKey) {
    consoleKey = key;
    buildConsole(box, mode);
  }
  const line = $("status-line");
  if (line) line.innerHTML = status;
}

function buildConsole(box, mode) {
  box.replaceChildren();
  const game = S.table.game;
  const left = document.createElement("div");
  left.className = "group status";
  const status = document.createElement("div");
  status.className = "status-line";
  status.id = "status-line";
  status.dataset.testid = "status";
  left.appendChild(status);
  box.appendChild(left);
  if (mode === "connecting" || mode === "watch") return;
  if (mode === "bet") box.appendChild(betControls(game));
  else if (mode === "act") box.appendChild(actionButtons(S.round));

  const right = document.createElement("div");
  right.className = "group right";
  const tog = document.createElement("label");
  tog.className = "toggle";
  tog.innerHTML = `<input type="checkbox" id="hint-toggle" ${S.hintsOn ? "checked" : ""}/><span class="track"></span>Strategy hints`;
  tog.querySelector("input").addEventListener("change", (e) => {
    S.hintsOn = e.target.checked;
    localStorage.setItem(HINTS_KEY, S.hintsOn ? "1" : "0");
    S.sock.send({ type: "hints", on: S.hintsOn, request_id: requestId("h") });
    if (!S.hintsOn) S.hint = null;
    renderConsole();
  });
  right.appendChild(tog);
  if (!myWagersInPlay()) {
    const leave = document.createElement("button");
    leave.className = "btn small ghost";
    leave.textContent = "Leave seat";
    leave.id = "leave-btn";
    leave.addEventListener("click", () => S.sock.send({ type: "leave", request_id: requestId("l") }));
    right.appendChild(leave);
  }
  box.appendChild(right);
}

/** After a draft change: redraw the felt and the "Deal me in" button, leave the inputs alone. */
function draftChanged() {
  renderFelt();
  const game = S.table.game;
  const place = $("place-bets");
  if (place) {
    const total = draftCost(game);
    place.innerHTML = `Deal me in · ${money(total)}`;
    place.disabled = !mainOf(game) || total <= 0;
  }
}

function betControls(game) {
  const wrap = document.createElement("div");
  wrap.className = "group bets";
  const rack = document.createElement("div");
  rack.className = "chip-rack";
  for (const d of DENOMINATIONS.slice(0, 5)) {
    const c = chipSVG(d);
    c.classList.toggle("active", d.cents === S.chip);
    c.dataset.cents = String(d.cents);
    c.addEventListener("click", () => {
      S.chip = d.cents;
      rack.querySelectorAll(".chip").forEach((x) => x.classList.toggle("active", x === c));
    });
    rack.appendChild(c);
  }
  wrap.appendChild(rack);

  const inputs = document.createElement("div");
  inputs.className = "wager-inputs";
  const draft = S.draft;
  for (const f of wagerFields(game)) {
    const label = document.createElement("label");
    if (f.kind === "amount") {
      label.innerHTML = `${escapeHtml(f.label)}<input type="text" inputmode="decimal" id="wager-${f.name}" data-wager="${f.name}" placeholder="$0" value="${
        draft.wagers[f.name] ? (draft.wagers[f.name] / 100).toString() : ""
      }"/>`;
      label.querySelector("input").addEventListener("change", (e) => {
        const v = e.target.value.trim();
        if (!v) delete draft.wagers[f.name];
        else {
          const cents = parseDollars(v);
          if (cents === null) {
            toast("A wager is a positive amount in dollars and cents", "error");
            e.target.value = "";
            delete draft.wagers[f.name];
          } else draft.wagers[f.name] = cents;
        }
        draftChanged();
      });
    } else if (f.kind === "fixed") {
      label.className = "check";
      label.innerHTML = `<input type="checkbox" id="wager-${f.name}" ${draft.wagers[f.name] ? "checked" : ""}/> ${escapeHtml(f.label)}`;
      label.querySelector("input").addEventListener("change", (e) => {
        if (e.target.checked) draft.wagers[f.name] = f.cents;
        else delete draft.wagers[f.name];
        draftChanged();
      });
    } else if (f.kind === "option") {
      const opts = [["ten-value", "Ten-value (2 to 1)"], ["one-eyed", "One-eyed (15 to 1)"]];
      for (let v = 1; v <= 9; v++) opts.push([String(v), `Value ${v} (11 to 1)`]);
      label.innerHTML = `${escapeHtml(f.label)}<select id="flip-option">${opts
        .map(([v, t]) => `<option value="${v}" ${v === draft.option ? "selected" : ""}>${t}</option>`)
        .join("")}</select>`;
      label.querySelector("select").addEventListener("change", (e) => {
        draft.option = e.target.value;
        draftChanged();
      });
    }
    inputs.appendChild(label);
  }
  wrap.appendChild(inputs);

  const total = draftCost(game);
  const place = document.createElement("button");
  place.className = "btn primary";
  place.id = "place-bets";
  place.dataset.testid = "place-bets";
  place.innerHTML = `Deal me in · ${money(total)}`;
  place.disabled = !mainOf(game) || total <= 0;
  place.addEventListener("click", placeBets);
  const clear = document.createElement("button");
  clear.className = "btn ghost small";
  clear.textContent = "Clear";
  clear.addEventListener("click", () => {
    S.draft.wagers = {};
    consoleKey = null;
    render();
  });
  wrap.appendChild(place);
  wrap.appendChild(clear);
  return wrap;
}

function mainOf(game) {
  return S.draft.wagers[game === "let-it-ride" ? "bets" : "main"];
}

function draftCost(game) {
  let total = 0;
  for (const [name, cents] of Object.entries(S.draft.wagers)) total += name === "bets" ? 3 * cents : cents;
  return total;
}

function addChip(spotKey) {
  if (!canBet()) return;
  const game = S.table.game;
  const w = S.draft.wagers;
  let name = spotKey;
  if (spotKey.startsWith("bet ")) name = "bets";
  if (name === "progressive" || name === "jackpot") {
    if (w[name]) delete w[name];
    else w[name] = 100;
  } else {
    w[name] = (w[name] || 0) + S.chip;
  }
  if (game !== "let-it-ride" && name !== "main" && !w.main) w.main = S.table.min_bet || 100;
  consoleKey = null;
  render();
}

function placeBets() {
  const game = S.table.game;
  const wagers = { ...S.draft.wagers };
  const msg = { type: "wager", request_id: requestId("w"), wagers };
  if (wagers.flip) msg.options = { flip: S.draft.option };
  if (!mainOf(game)) {
    toast("Place the main bet first", "error");
    return;
  }
  S.pendingWager = msg.request_id;
  S.sock.send(msg);
  render();
}

function actionLabel(action, r) {
  const game = r.game;
  if (action === "pull") return { text: `Pull bet ${r.stage || 1}`, sub: "take it back" };
  if (action === "ride") return { text: "Let it ride", sub: `keep bet ${r.stage || 1} up` };
  if (action === "stand") return { text: "Stand", sub: game === "final-count" ? "on the two up cards" : "keep these cards" };
  if (action === "turn") return { text: "Turn 3rd card", sub: "must total even" };
  const m = /^discard (\d)$/.exec(action);
  if (m) {
    const v = myView();
    const code = v ? v.cards[Number(m[1])] : null;
    return { text: `Swap ${cardText(code)}`, sub: "discard & draw" };
  }
  return { text: action, sub: "" };
}

function actionButtons(r) {
  const wrap = document.createElement("div");
  wrap.className = "actions";
  const hint = S.hintsOn && S.hint && S.hint.round_id === S.roundId ? S.hint : null;
  const hintBy = {};
  if (hint) for (const a of hint.actions || []) hintBy[a.action] = a;
  for (const action of r.legal_actions) {
    const { text, sub } = actionLabel(action, r);
    const b = document.createElement("button");
    b.className = `action-btn act-${action.split(" ")[0]}`;
    b.dataset.action = action;
    b.dataset.testid = `act-${action.replace(" ", "-")}`;
    b.innerHTML = `${escapeHtml(text)}<span class="sub">${escapeHtml(sub)}</span>`;
    const key = Object.keys(KEYS).find((k) => KEYS[k] === action);
    if (key) b.title = `key ${key.toUpperCase()}`;
    if (hint) {
      const info = hintBy[action];
      const tag = document.createElement("span");
      tag.className = "hint-tag";
      if (hint.best === action) {
        b.classList.add("best");
        tag.textContent = info && info.ev !== null && info.ev !== undefined ? `★ BEST · EV ${fmtEv(info.ev)}` : "★ BEST";
        b.appendChild(tag);
      } else if (info && info.cost !== null && info.cost !== undefined) {
        tag.textContent = `costs ${Number(info.cost).toFixed(3)}`;
        b.appendChild(tag);
      }
    }
    b.addEventListener("click", () => act(action));
    wrap.appendChild(b);
  }
  if (hint) {
    const note = document.createElement("div");
    note.className = "hint-note";
    note.id = "hint-note";
    note.textContent =
      hint.source === "exact"
        ? "Hint: exact strategy. EV and cost in units of the main bet."
        : "Hint: rule-of-thumb strategy (no exact values).";
    wrap.appendChild(note);
  }
  return wrap;
}

// Keyboard: P pull, R ride, S stand, T turn, 1-3 swap that card, D deal me in, H hints.
const KEYS = { p: "pull", r: "ride", s: "stand", t: "turn", 1: "discard 0", 2: "discard 1", 3: "discard 2" };

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || !S.table || $("room").hidden) return;
  const tag = (e.target && e.target.tagName) || "";
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  const key = e.key.toLowerCase();
  if (KEYS[key] && S.round && (S.round.legal_actions || []).includes(KEYS[key])) {
    e.preventDefault();
    act(KEYS[key]);
  } else if (key === "d" && canBet() && $("place-bets") && !$("place-bets").disabled) {
    e.preventDefault();
    placeBets();
  } else if (key === "h" && $("hint-toggle")) {
    e.preventDefault();
    $("hint-toggle").click();
  }
}

function fmtEv(ev) {
  const v = Number(ev);
  return (v >= 0 ? "+" : "−") + Math.abs(v).toFixed(3);
}

function act(action) {
  if (!S.round || S.round.to_act !== S.seat) return;
  if (!(S.round.legal_actions || []).includes(action)) return;
  // the act names the decision it answers: a second click, or another window's, changes nothing
  S.sock.send({ type: "act", action, decision: S.decision, request_id: requestId("a") });
}

/** The provably-fair panel: the next round's commitment and my client seed (docs/protocol.md). */
function renderSeed() {
  const panel = $("seed-panel");
  if (!panel) return;
  panel.hidden = !S.nextCommitment;
  $("next-commitment").textContent = S.nextCommitment ? `${S.nextCommitment.slice(0, 16)}…` : "—";
  $("next-commitment").title = S.nextCommitment || "";
  $("seed-status").textContent = S.clientSeed
    ? `Your seed: “${S.clientSeed}” (mixed into every round you sit in).`
    : "No seed set: rounds use the default seed.";
}

function setSeed(e) {
  e.preventDefault();
  const seed = $("seed-input").value.trim();
  if (!seed || !S.sock || !S.nextCommitment) return;
  // the seed names the commitment it answers: the next round's server seed was fixed before we chose ours
  S.sock.send({ type: "client_seed", seed, commitment: S.nextCommitment, request_id: requestId("c") });
}

function sit(seat) {
  S.sock.send({ type: "sit", seat, request_id: requestId("s") });
}

// --- history and recall ------------------------------------------------------------------------------

async function loadHistory() {
  if (!S.me) return;
  try {
    const rows = await api("GET", "/history?last=15"); // your own rounds: the token says whose
    S.history = rows;
    renderHistory();
  } catch {
    /* history is best-effort */
  }
}

function renderHistory() {
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
    li.innerHTML = `<span>#${row.round_id} ${escapeHtml(GAME_NAMES[row.game] || row.game)} · round ${row.round_no}</span>
      <span class="net ${net > 0 ? "pos" : net < 0 ? "neg" : ""}">${money(net, { sign: true })}</span>`;
    li.addEventListener("click", () => openRecall(row.round_id));
    ul.appendChild(li);
  }
}

function describeEvent(e) {
  switch (e.type) {
    case "round_started":
      return `Round ${e.round_no} of ${escapeHtml(GAME_NAMES[e.game] || e.game)} · ${escapeHtml(
        Object.entries(e.rules || {})
          .map(([k, v]) => `${k}=${v}`)
          .join(", "),
      )}`;
    case "wager_placed":
      return `Seat ${e.seat} wagers ${money(e.amount)} on ${escapeHtml(e.wager)}${e.option ? ` (${escapeHtml(e.option)})` : ""}`;
    case "jackpot_contribution":
      return `Seat ${e.seat} adds ${money(e.amount)} to the ${escapeHtml(e.meter)} meter (now ${money(e.meter_after)})`;
    case "card_dealt":
      return `Card #${e.position} to ${escapeHtml(e.to)} ${miniCards([e.card])} ${e.visible_to === "all" ? "face up" : "face down"}`;
    case "cards_revealed":
      return `${escapeHtml(e.owner)} shows ${miniCards(e.cards)}`;
    case "card_discarded":
      return `${escapeHtml(e.owner)} discards ${miniCards([e.card])}`;
    case "action":
      return `Seat ${e.seat}: <b>${escapeHtml(e.action)}</b> (by ${escapeHtml(e.by)})`;
    case "hand":
      return `${escapeHtml(e.owner)}: ${escapeHtml(e.hand)}`;
    case "settled":
      return `Seat ${e.seat} ${escapeHtml(e.wager)}: ${escapeHtml(e.outcome)}, staked ${money(e.staked)}, returned ${money(e.returned)}${
        e.detail ? ` (${escapeHtml(e.detail)})` : ""
      }`;
    case "jackpot_hit":
      return `<b>JACKPOT</b> seat ${e.seat} hits ${escapeHtml(e.meter)}: ${money(e.amount)} (reset to ${money(e.reset_to)})`;
    case "envy_paid":
      return `<b>Envy</b> seat ${e.seat} paid ${money(e.amount)} for seat ${e.from_seat}'s ${escapeHtml(e.hand)}`;
    case "round_ended":
      return `Round ended · house ${money(e.house_net, { sign: true })}`;
    default:
      return escapeHtml(JSON.stringify(e));
  }
}

/** The provably-fair record of a round (server seed revealed after the round, its commitment, ...). */
function fairnessHtml(f) {
  if (!f || typeof f !== "object") return "";
  const rows = [];
  const add = (k, v) => {
    if (v && typeof v === "object" && !Array.isArray(v)) for (const [k2, v2] of Object.entries(v)) add(`${k}.${k2}`, v2);
    else rows.push(`<tr><th>${escapeHtml(k)}</th><td class="mono">${escapeHtml(Array.isArray(v) ? v.join(" ") : String(v))}</td></tr>`);
  };
  for (const [k, v] of Object.entries(f)) add(k, v);
  return `<h3>Provably fair</h3><p class="muted">The deck was sealed by the commitment before the deal; the revealed
    server seed reproduces it (<code>tablegames verify</code>).</p><table class="fairness">${rows.join("")}</table>`;
}

async function openRecall(roundId) {
  const sheet = $("recall-sheet");
  try {
    const r = await api("GET", `/rounds/${roundId}`);
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
          `<tr><td>${escapeHtml(j.kind)}</td><td>${escapeHtml(METER_NAMES[j.meter] || j.meter)}</td><td>${money(j.amount)}</td><td>${escapeHtml(
            j.player || "",
          )}</td></tr>`,
      )
      .join("");
    sheet.innerHTML = `
      <h2>Round #${r.round_id} · ${escapeHtml(GAME_NAMES[r.game] || r.game)} · ${escapeHtml(r.table || "")}</h2>
      <p>${escapeHtml(when(r.started))} → ${escapeHtml(when(r.settled_at))} · ${escapeHtml(r.status || "")}${
        r.recovered ? " · completed after a restart" : ""
      } · house ${money(r.house_net, { sign: true })}</p>
      <p class="muted">Rules: ${escapeHtml(
        Object.entries(r.rules || {})
          .map(([k, v]) => `${k}=${v}`)
          .join(", "),
      )}</p>
      <table class="players"><tr><th>Seat</th><th>Player</th><th>Staked</th><th>Returned</th><th>Net</th><th>Balance</th></tr>${players}</table>
      ${jackpot ? `<h3>Jackpot</h3><table><tr><th>Entry</th><th>Meter</th><th>Amount</th><th>Player</th></tr>${jackpot}</table>` : ""}
      ${fairnessHtml(r.fairness)}
      <h3>Every step</h3>
      <ol class="recall-events">${(r.events || []).map((e) => `<li>${describeEvent(e)}</li>`).join("")}</ol>
      <div class="form-row"><button class="btn" id="recall-close" type="button">Close</button></div>`;
  } catch (err) {
    sheet.innerHTML = `<p class="error">${escapeHtml(err.message)}</p><button class="btn" id="recall-close" type="button">Close</button>`;
  }
  $("recall").hidden = false;
  $("recall-close").addEventListener("click", () => ($("recall").hidden = true));
}

// --- boot -------------------------------------------------------------------------------------------

function boot() {
  installSprite();
  $("register-form").addEventListener("submit", register);
  $("wallet-form").addEventListener("submit", (e) => {
    e.preventDefault();
    walletOp("buy-in");
  });
  $("cashout-btn").addEventListener("click", () => walletOp("cash-out"));
  $("seed-form").addEventListener("submit", setSeed);
  $("btn-lobby").addEventListener("click", () => (location.hash = "#/"));
  $("btn-wallet").addEventListener("click", () => (location.hash = "#/"));
  $("btn-logout").addEventListener("click", () => {
    setToken(null);
    S.me = null;
    location.hash = "#/";
    enterLobby();
  });
  $("recall").addEventListener("click", (e) => {
    if (e.target.id === "recall") $("recall").hidden = true;
  });
  window.addEventListener("hashchange", route);
  document.addEventListener("keydown", onKey);
  let tick = 0;
  setInterval(() => {
    const c = document.getElementById("countdown");
    if (c) c.textContent = countdownText();
    for (const t of document.querySelectorAll("[data-countdown]")) t.textContent = countdownText();
    if (++tick % 5 === 0 && !$("lobby").hidden && S.me) refreshLobby();
  }, 1000);
  route();
}

window.tablegames = S; // read-only handle for debugging and tests
boot();
