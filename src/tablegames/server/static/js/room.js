// The table room: the socket's messages reduced into the page's state, the live log, announcements, and the
// scene the felt (table.js) is drawn from. What a round holds comes from the server's view and events.

import { showRealityCheck } from "./protection.js";
import { TableSocket, api, getToken, requestId, setToken } from "./api.js";
import { clearConsole, defaultDraft, renderConsole, act, addChip } from "./console.js";
import { escapeHtml, handName, money } from "./format.js";
import { QUIET_LIVE, narrate } from "./narrate.js";
import { loadHistory } from "./recall.js";
import {
  $,
  S,
  actionLabel,
  canBet,
  countdownText,
  gameOf,
  gameTitle,
  loadMe,
  meterTitle,
  renderWho,
  seatName,
  setBalance,
  showError,
  toast,
} from "./state.js";
import { layoutOf, renderTable } from "./table.js";

function freshPer(roundId) {
  return { roundId, outcomes: {}, hands: {}, lastActions: {}, announced: new Set() };
}

export function leaveRoom() {
  if (S.sock) S.sock.close();
  S.sock = null;
  S.tableId = null;
  S.table = null;
  S.layout = null;
  S.round = null;
  S.roundId = null;
  S.seat = null;
  S.per = null;
  S.hint = null;
  S.seenCards = new Set();
  $("btn-lobby").hidden = true;
  $("btn-paytable").hidden = true;
}

/** Enter a table: to play (a player's token), or ``watch`` as a spectator (public cards only, no account). */
export async function enterRoom(tableId, watch = false) {
  if (S.tableId === tableId && S.sock && S.watching === (watch && !getToken())) return;
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
  S.watching = !S.me && watch;
  if (!S.me && !S.watching) {
    location.hash = "#/";
    return;
  }
  renderWho();
  $("btn-lobby").hidden = false;
  $("btn-paytable").hidden = false;
  $("log").replaceChildren();
  S.per = freshPer(null);
  S.sock = new TableSocket(tableId, { onMessage, onStatus });
  if (!S.watching) loadHistory();
}

function onStatus(status, code) {
  S.conn = status;
  if (status === "open" && S.hintsOn) S.sock.send({ type: "hints", on: true });
  if (status === "closed") {
    const why = {
      4401: "Your session is not valid: please register again.",
      4409: "This table is open in newer windows: this one was closed.",
      4403: "You are on a break or self-excluded: the tables are closed to you until it ends.",
      4440: "Your session ended.",
      4503: "This table has too many connections right now.",
    };
    toast(why[code] || "No such table.", "error");
    if (code === 4401) setToken(null);
    if (code !== 4409) location.hash = "#/";
  }
  renderConsole();
}

function onWelcome(msg) {
  S.table = msg.table;
  S.seat = msg.seat ?? null;
  setBalance(msg.balance);
  $("room-title").textContent = `${gameTitle(msg.table.game)} · ${msg.table.name}`;
  $("where").innerHTML = `<span class="where-game">${escapeHtml(gameTitle(msg.table.game))}</span> · ${escapeHtml(
    msg.table.name,
  )} · limits ${money(msg.table.min_bet)}–${money(msg.table.max_bet)}`;
  if (!S.draft || S.draft.game !== msg.table.game) S.draft = defaultDraft();
  if (!S.layout || S.layout.game !== msg.table.game) {
    const game = msg.table.game;
    layoutOf(gameOf(game)).then((layout) => {
      if (!S.table || S.table.game !== game) return;
      S.layout = { ...layout, game };
      render();
    });
  }
  // a (re)connection is sent the current round's events from its start: rebuild what they say
  S.per = freshPer(null);
  S.roundId = null;
  $("log").replaceChildren();
}

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      onWelcome(msg);
      break;
    case "state":
      onState(msg);
      break;
    case "round_result":
      onResult(msg);
      break;
    case "reality_check":
      showRealityCheck(msg);
      return;
    case "hint":
      S.hint = S.hintsOn && hintIsCurrent(msg) ? msg : null;
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

/** A hint is drawn only at the decision it answers (its ``decision`` id, as the state's). */
function hintIsCurrent(hint) {
  return hint.round_id === S.roundId && (hint.decision === undefined || hint.decision === S.decision);
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
    if (msg.seed && !msg.duplicate) toast(`Client seed revealed for round ${msg.round_no}.`, "info");
  }
}

function onState(msg) {
  if (msg.table_id !== undefined && S.table && msg.table_id !== S.table.table_id) return;
  if (msg.round_id !== S.roundId) {
    S.per = freshPer(msg.round_id);
    S.hint = null;
  }
  // a hint answers one decision: the next one's hint comes after this state (issue 24: the second decision
  // kept the first one's EVs)
  if ((msg.decision ?? null) !== S.decision) S.hint = null;
  S.roundId = msg.round_id;
  S.seat = msg.seat ?? null;
  setBalance(msg.balance);
  S.occupants = msg.occupants || {};
  S.bots = msg.bots || []; // the practice bots' seats, and whether this player may seat one (the server says)
  S.maySeatBots = !!msg.may_seat_bots;
  S.round = msg.round || null;
  S.bettingOpen = !!msg.betting_open;
  S.tableStatus = msg.table_status || "open"; // staff may pause or close the table (issue 25)
  S.deadlineAt = msg.seconds_left === null || msg.seconds_left === undefined ? null : Date.now() + msg.seconds_left * 1000;
  S.meters = msg.meters || (S.round && S.round.meters) || {};
  S.commitment = msg.commitment || null;
  S.decision = msg.decision ?? null;
  S.nextCommitment = msg.next_commitment ?? null;
  S.clientSeed = msg.client_seed ?? null;
  S.seeds = msg.seeds ?? null;
  renderSeed();
  seedTick();
  for (const ev of msg.events || []) onEvent(ev);
  announceTurn();
  if (S.hint && (!S.round || S.round.to_act !== S.seat || !hintIsCurrent(S.hint))) S.hint = null;
  // cards that appeared since the last state: animated as dealt
  const now = new Set();
  if (S.round && S.round.phase !== "betting") {
    for (const s of S.round.seats) s.cards.forEach((c, i) => c && now.add(`${s.seat}:${i}:${c}`));
  }
  S.newCards = new Set([...now].filter((k) => !S.seenCards.has(k)));
  S.seenCards = now;
}

/** Say ``html``'s words to a screen reader: the #announce live region (issue 24: cards, turns and results
 * announced) keeps the last dozen lines. */
function announce(html) {
  const box = $("announce");
  const p = document.createElement("p");
  p.innerHTML = html;
  const text = p.textContent.replace(/\s+/g, " ").trim();
  if (!box || !text) return;
  p.textContent = text;
  box.appendChild(p);
  while (box.childElementCount > 12) box.firstChild.remove();
}

/** "Your turn" once per decision of mine, with what I may do (the view's legal actions, in the game's words). */
function announceTurn() {
  const r = S.round;
  if (!r || r.phase !== "deciding" || S.seat === null || r.to_act !== S.seat) return;
  const key = `${S.roundId}:${S.decision}`;
  if (S.per.turnAnnounced === key) return;
  S.per.turnAnnounced = key;
  announce(`Your turn: ${(r.legal_actions || []).map((a) => actionLabel(a)).join(", or ")}.`);
}

function log(html) {
  announce(html);
  const li = document.createElement("li");
  li.innerHTML = html;
  const ul = $("log");
  ul.appendChild(li);
  while (ul.childElementCount > 120) ul.firstChild.remove();
  ul.scrollTop = ul.scrollHeight;
}

const narration = (ev) =>
  narrate(ev, {
    game: S.table ? S.table.game : null,
    occupants: S.occupants,
    ruleSummary: S.table ? S.table.rule_summary : "",
    you: S.seat,
  });

function onEvent(ev) {
  const per = S.per;
  if (ev.type === "action") per.lastActions[ev.seat] = actionLabel(ev.action).toUpperCase() + (ev.by === "timeout" ? " (TIME)" : "");
  else if (ev.type === "settled") {
    // a wager's outcome by its name, and by "<wager> <part>" for each of its equal bets the event settles
    const mine = (per.outcomes[ev.seat] ||= {});
    mine[ev.wager] = ev.outcome;
    for (const part of (ev.part || "").split(" ").filter(Boolean)) mine[`${ev.wager} ${part}`] = ev.outcome;
  }
  else if (ev.type === "hand") per.hands[ev.owner] = ev.hand;
  if (ev.type === "jackpot_hit") announceJackpot(ev);
  else if (ev.type === "envy_paid") announceBonus(ev);
  else if (!QUIET_LIVE.has(ev.type)) log(narration(ev));
  else if (ev.type === "card_dealt" && ev.card) announce(narration(ev)); // a card I may see, said not logged
}

function announceJackpot(hit) {
  const key = `jp:${hit.seat}:${hit.meter}`;
  if (S.per.announced.has(key)) return;
  S.per.announced.add(key);
  const who = hit.seat === S.seat ? "YOU HIT" : `${escapeHtml(seatName(hit.seat))} hits`;
  const meter = escapeHtml(meterTitle(S.table.game, hit.meter));
  toast(`★ JACKPOT! ${who} the ${meter}: <b>${money(hit.amount)}</b>`, "jackpot-hit", 9000);
  log(narration({ type: "jackpot_hit", ...hit }));
}

/** A neighbour bonus (the wire's ``envy_paid``): a seat paid for another seat's hand, titled by GET /games. */
function announceBonus(paid) {
  const key = `bonus:${paid.seat}:${paid.from_seat}`;
  if (S.per.announced.has(key)) return;
  S.per.announced.add(key);
  const title = gameOf(S.table.game).neighbour_bonus || "Bonus";
  const hand = escapeHtml(handName(paid.hand).toLowerCase());
  const from = escapeHtml(seatName(paid.from_seat));
  toast(
    paid.seat === S.seat
      ? `${escapeHtml(title.toUpperCase())}! ${from}'s ${hand} pays you <b>${money(paid.amount)}</b>`
      : `${escapeHtml(title)}: ${escapeHtml(seatName(paid.seat))} collects ${money(paid.amount)} on ${from}'s ${hand}`,
    "neighbour-bonus",
    9000,
  );
  log(narration({ type: "envy_paid", ...paid }));
}

function onResult(msg) {
  if (S.lastResultRound === msg.round_id) return;
  S.lastResultRound = msg.round_id;
  setBalance(msg.balance);
  if (msg.meters) S.meters = msg.meters;
  for (const e of msg.envy || []) announceBonus(e);
  for (const h of msg.jackpot_hits || []) announceJackpot(h);
  const mine = (msg.results || []).find((r) => r.seat === S.seat);
  if (mine) {
    const hand = S.per.hands[`seat ${S.seat}`];
    // a $0 net is a push only when nothing won or lost: a win paying for a loss is "even" (issue 24)
    const outcomes = Object.values(S.per.outcomes[S.seat] || {});
    const evenText = outcomes.some((o) => !["push", "pulled", "returned"].includes(o)) ? "Even — your wins paid for your losses" : "Push — your money back";
    const text = mine.net > 0 ? `You win <b>${money(mine.net)}</b>` : mine.net < 0 ? `You lose ${money(-mine.net)}` : evenText;
    toast(text + (hand ? ` · ${escapeHtml(handName(hand))}` : ""), mine.net > 0 ? "win" : mine.net < 0 ? "lose" : "info");
    announce(text + (hand ? ` · ${escapeHtml(handName(hand))}` : ""));
  }
  loadHistory();
}

// --- the scene ----------------------------------------------------------------------------------------

/** Each settled seat's result: its net, its hand (the server's hand event, else the view's words). */
function results() {
  const out = {};
  const r = S.round;
  if (!r || r.phase !== "settled") return out;
  for (const s of r.seats) {
    if (!Object.keys(s.wagers).length || s.returned === null) continue;
    const described = r.hands && r.hands[String(s.seat)] ? r.hands[String(s.seat)].description : "";
    const hand = S.per.hands[`seat ${s.seat}`] || described;
    out[s.seat] = { net: s.returned - s.staked, hand, outcomes: S.per.outcomes[s.seat] || {} };
  }
  return out;
}

function scene() {
  const players = {};
  for (const [seat, name] of Object.entries(S.occupants)) players[seat] = { name, bot: (S.bots || []).includes(Number(seat)) };
  return {
    game: gameOf(S.table.game),
    layout: S.layout,
    seatCount: S.table.seats,
    players,
    mySeat: S.seat,
    round: S.round,
    results: results(),
    draft: canBet() ? S.draft.wagers : null,
    draftOptions: S.draft ? S.draft.options : null,
    phaseOpen: canBet(),
    meters: S.meters,
    commitment: S.round && S.round.phase !== "settled" ? S.commitment : null,
    dealerHand: S.per.hands.dealer || null,
    lastActions: S.per.lastActions,
    newCards: S.newCards,
    handlers: S.watching ? {} : { onSit: sit, onSpot: addChip, onCard: act, onAddBot: S.maySeatBots ? addBot : null },
  };
}

export function render() {
  renderFelt();
  renderConsole();
}

export function renderFelt() {
  if (!S.table || !S.layout) return;
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

// --- seat and seed ---------------------------------------------------------------------------------------

/** SHA-256 of the text's UTF-8 bytes, hex; null where the browser offers no Web Crypto (an http:// page that
 * is not localhost): the page then takes no seed. */
async function sha256Hex(text) {
  if (!globalThis.crypto || !crypto.subtle) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function randomHex(bytes) {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The provably-fair panel: the next round's commitment and my client seed (docs/protocol.md). */
function renderSeed() {
  const panel = $("seed-panel");
  if (!panel) return;
  panel.hidden = !S.nextCommitment;
  $("next-commitment").textContent = S.nextCommitment ? `${S.nextCommitment.slice(0, 16)}…` : "—";
  $("next-commitment").title = S.nextCommitment || "";
  const mine = S.clientSeed;
  let text;
  if (!globalThis.crypto || !crypto.subtle) text = "Client seeds need a secure page (https, or localhost).";
  else if (mine && mine.seed) text = `Revealed for the next round: “${mine.seed}” (committed as ${mine.seed_hash.slice(0, 12)}…).`;
  else if (mine) text = `Committed for the next round (SHA-256 ${mine.seed_hash.slice(0, 12)}…); revealed when no round is in play.`;
  else if (S.seedText && S.seeds && S.seeds.closed) text = `Your seed “${S.seedText}” joins the round after next (this one's seeds are being revealed).`;
  else if (S.seedText) text = `Your seed “${S.seedText}”: committing for the next round…`;
  else text = "No seed set: rounds use the default seed.";
  $("seed-status").textContent = text;
}

/** Each round: commit to a fresh seed (the typed text plus 128 random bits) as soon as the round's commitment
 * is published, and reveal it once no round is in play. The first reveal of a round closes its commitments, so
 * no seat can choose its seed after seeing another's (docs/protocol.md, "Client seeds"). */
async function seedTick() {
  const c = S.nextCommitment;
  if (!S.seedText || !S.sock || !c || !S.seeds || S.seat === null || S.seat === undefined) return;
  const mine = S.clientSeed;
  if (!mine) {
    if (S.seeds.closed || S.seedSent[c]) return;
    S.seedSent[c] = "commit";
    const seed = `${S.seedText} ${randomHex(16)}`;
    const hash = await sha256Hex(seed);
    if (!hash) return;
    S.mySeeds[c] = seed;
    S.sock.send({ type: "client_seed", seed_hash: hash, commitment: c, request_id: requestId("c") });
  } else if (mine.seed === null && S.mySeeds[c] && S.seedSent[c] !== "reveal") {
    if (S.round && S.round.phase !== "settled") return; // reveal between rounds: every commitment is in by then
    S.seedSent[c] = "reveal";
    if ((await sha256Hex(S.mySeeds[c])) !== mine.seed_hash) return; // not this page's commitment: nothing to show
    S.sock.send({ type: "client_seed", seed: S.mySeeds[c], commitment: c, request_id: requestId("c") });
  }
}

export function setSeed(e) {
  e.preventDefault();
  const text = $("seed-input").value.trim();
  if (!text || !S.sock || !S.nextCommitment) return;
  // the seed of each round is committed (its SHA-256) against that round's commitment, then revealed
  S.seedText = text;
  renderSeed();
  seedTick();
}

function addBot(seat) {
  // a practice bot (docs/server.md, "Practice bots"): the server seats it; the next state shows it
  api("POST", `/tables/${S.table.table_id}/bots`, { seat }).catch((e) => toast(escapeHtml(e.message), "error", 5000));
}

function sit(seat) {
  S.sock.send({ type: "sit", seat, request_id: requestId("s") });
  clearConsole();
}
