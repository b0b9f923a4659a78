// The page's state, and what every part of it reads: the games (GET /games), the table's wagers and
// decisions (its round's view first, the game's defaults otherwise), names, toasts, the balance pill.
// Nothing here knows a game: what a game offers comes from the server.

import { ApiError, api, getToken, setToken } from "./api.js";
import { escapeHtml, money, titleCase } from "./format.js";

export const $ = (id) => document.getElementById(id);
export const HINTS_KEY = "tablegames.hints";

export const S = {
  me: null, // {player_id, name, balance}
  games: [], // GET /games
  tables: [],
  // room
  tableId: null,
  table: null,
  layout: null, // the felt layout of the table's game (table.js layoutOf)
  sock: null,
  conn: "closed",
  seat: null,
  balance: null,
  occupants: {},
  watching: false, // a spectator without an account (#/watch/N)
  round: null,
  roundId: null,
  bettingOpen: false,
  tableStatus: "open",
  deadlineAt: null,
  meters: {},
  per: null, // per-round derived state from events
  hint: null,
  hintsOn: localStorage.getItem(HINTS_KEY) === "1",
  chip: 500,
  draft: null, // {game, wagers: {name: cents}, options: {name: choice}}
  seenCards: new Set(),
  newCards: new Set(),
  history: [],
  lastResultRound: null,
  pendingWager: null,
  decision: null, // the id of the decision awaited now (an act names it)
  nextCommitment: null, // the next round's server-seed commitment (a client seed names it)
  clientSeed: null, // my seed for the next round, as the server has it: {seed_hash, seed (null until revealed)}
  seeds: null, // the next round's commitments: {closed, committed: [{seat, seed_hash, revealed}]}
  seedText: null, // the text the player typed: each round's seed is it plus 128 random bits (issue 20)
  mySeeds: {}, // next commitment -> the seed this page committed to for that round (kept in this page only)
  seedSent: {}, // next commitment -> "commit" | "reveal": what this page already sent for that round
};

// --- the games ------------------------------------------------------------------------------------

export async function loadGames() {
  if (!S.games.length) S.games = await api("GET", "/games");
  return S.games;
}

/** A game's GET /games entry (an unknown key: an empty game named by its key). */
export function gameOf(key) {
  return (
    S.games.find((g) => g.key === key) || {
      key,
      title: key,
      tagline: "",
      felt: null,
      wagers: [],
      decisions: [],
      meters: [],
    }
  );
}

export const gameTitle = (key) => gameOf(key).title || key;

export function meterTitle(game, meter) {
  const m = (gameOf(game).meters || []).find((x) => x.name === meter);
  return (m && m.title) || meter;
}

export function wagerTitle(game, wager) {
  const w = (gameOf(game).wagers || []).find((x) => x.name === wager);
  return (w && w.title) || wager;
}

/** One wager in one shape, from a view's ``wager_specs`` entry or a GET /games entry. */
function wagerShape(w) {
  const choices = w.option ? w.option.choices : w.options || [];
  return {
    name: w.name,
    title: w.title || w.name,
    main: !!w.main,
    cost_multiple: w.cost_multiple || 1,
    fixed_cents: w.fixed_cents ?? null,
    requires: w.requires ?? null,
    choices: choices || [],
    optionName: w.option ? w.option.name : "",
    optionHelp: w.option ? w.option.help : "",
  };
}

/** The wagers a seat may place at this table now: the round's view (this table's rules), the table's state,
 * else the game's defaults (GET /games). */
export function wagersOf() {
  if (!S.table) return [];
  const specs = (S.round && S.round.wager_specs) || S.table.wager_specs;
  const defaults = gameOf(S.table.game).wagers || [];
  if (!specs || !specs.length) return defaults.map(wagerShape);
  return specs.map((w) => {
    const base = defaults.find((d) => d.name === w.name);
    const own = wagerShape(w);
    return base ? { ...own, optionName: wagerShape(base).optionName, optionHelp: wagerShape(base).optionHelp } : own;
  });
}

export const mainWager = () => wagersOf().find((w) => w.main) || null;

/** What ``"<name>"`` or ``"<name> <index>"`` plays: its decision (GET /games) and card index; ``gameKey``
 * the game (default: the table's). */
export function decisionOf(action, gameKey = S.table ? S.table.game : null) {
  const m = /^(\S+)(?: (\d+))?$/.exec(String(action));
  const name = m ? m[1] : String(action);
  const index = m && m[2] !== undefined ? Number(m[2]) : null;
  const game = gameKey ? gameOf(gameKey) : null;
  const decision = game ? (game.decisions || []).find((d) => d.name === name) : null;
  return { name, index, decision };
}

/** A decision's label, a person's words ("discards card 2 and draws", cards counted from 1); the action
 * itself when unknown. */
export function actionLabel(action, gameKey = S.table ? S.table.game : null) {
  const { index, decision } = decisionOf(action, gameKey);
  if (!decision) return String(action);
  return decision.label.replace("{n}", index === null ? "" : String(index + 1));
}

// --- names and money on the page ---------------------------------------------------------------------

export function seatName(seat, occupants = S.occupants) {
  const name = occupants[String(seat)];
  return name ? `${name} (seat ${seat})` : `Seat ${seat}`;
}

export function ownerName(owner, occupants = S.occupants) {
  const m = /^seat (\d+)$/.exec(owner || "");
  return m ? seatName(Number(m[1]), occupants) : titleCase(String(owner || ""));
}

export function toast(text, kind = "info", ms = 4200) {
  const t = document.createElement("div");
  t.className = `toast ${kind}`;
  t.innerHTML = text;
  $("toasts").appendChild(t);
  setTimeout(() => t.remove(), ms);
  return t;
}

export function showError(err) {
  const msg = err instanceof ApiError ? err.message : err && err.message ? err.message : String(err);
  toast(escapeHtml(msg), "error", 5000);
}

export function setBalance(cents) {
  if (cents === null || cents === undefined) return;
  if (S.me) S.me.balance = cents;
  S.balance = cents;
  $("balance").textContent = money(cents);
  const wb = $("wallet-balance");
  if (wb) wb.textContent = money(cents);
}

export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

export function countdownText() {
  if (!S.deadlineAt) return "";
  const s = Math.max(0, Math.ceil((S.deadlineAt - Date.now()) / 1000));
  return `${s}s`;
}

// --- my seat --------------------------------------------------------------------------------------------

export function myView() {
  return S.round ? S.round.seats.find((s) => s.seat === S.seat) : null;
}

export function myWagersInPlay() {
  const v = myView();
  return !!(S.round && S.round.phase !== "settled" && v && Object.keys(v.wagers).length);
}

export function canBet() {
  return S.seat !== null && S.bettingOpen && !myWagersInPlay() && !S.pendingWager;
}

/** Who I am (GET /me), or null without a valid token (a refused token is forgotten). */
export async function loadMe() {
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

export function renderWho() {
  $("who").hidden = !S.me;
  if (S.me) {
    $("who-name").textContent = S.me.name;
    setBalance(S.me.balance);
  }
  $("btn-lobby").hidden = !S.tableId;
  $("btn-paytable").hidden = !S.tableId;
}
