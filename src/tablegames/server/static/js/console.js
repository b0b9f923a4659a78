// The console under the felt: the status line, the bet controls (chips, one field per wager the table
// offers), the decision buttons (the legal actions of the view, labelled by GET /games), hints and keys.
// It validates nothing a game decides: the server's refusal (its message) is shown instead.

import { requestId } from "./api.js";
import { DENOMINATIONS, cardText, chipSVG } from "./cards.js";
import { choiceText, escapeHtml, money, parseDollars, titleCase } from "./format.js";
import { render, renderFelt } from "./room.js";
import {
  $,
  HINTS_KEY,
  S,
  actionLabel,
  canBet,
  countdownText,
  decisionOf,
  gameOf,
  mainWager,
  myView,
  myWagersInPlay,
  seatName,
  toast,
  wagersOf,
} from "./state.js";

let consoleKey = null;

/** A fresh draft: the main wager at the table's limits, every option at its first choice. */
export function defaultDraft() {
  const t = S.table || {};
  const draft = { game: t.game, wagers: {}, options: {} };
  const main = mainWager();
  if (main) draft.wagers[main.name] = Math.max(t.min_bet || 100, Math.min(500, t.max_bet || 500));
  for (const w of wagersOf()) if (w.choices.length) draft.options[w.name] = w.choices[0];
  return draft;
}

/** What the draft takes from the balance: each wager's amount times its cost multiple (GET /games). */
function draftCost() {
  const by = Object.fromEntries(wagersOf().map((w) => [w.name, w]));
  let total = 0;
  for (const [name, cents] of Object.entries(S.draft.wagers)) total += (by[name] ? by[name].cost_multiple : 1) * cents;
  return total;
}

/** A click on a betting spot: a chip more on it (a fixed-amount wager toggles), and the wager it requires. */
export function addChip(wagerName) {
  if (!canBet()) return;
  const by = Object.fromEntries(wagersOf().map((w) => [w.name, w]));
  const w = S.draft.wagers;
  const spec = by[wagerName];
  if (spec && spec.fixed_cents !== null) {
    if (w[wagerName]) delete w[wagerName];
    else w[wagerName] = spec.fixed_cents;
  } else {
    w[wagerName] = (w[wagerName] || 0) + S.chip;
  }
  const needed = spec && spec.requires ? by[spec.requires] : null;
  if (needed && w[wagerName] && !w[needed.name]) w[needed.name] = needed.fixed_cents ?? (S.table.min_bet || 100);
  consoleKey = null;
  render();
}

export function placeBets() {
  const wagers = { ...S.draft.wagers };
  const msg = { type: "wager", request_id: requestId("w"), wagers };
  const options = {};
  for (const w of wagersOf()) if (w.choices.length && wagers[w.name]) options[w.name] = S.draft.options[w.name];
  if (Object.keys(options).length) msg.options = options;
  S.pendingWager = msg.request_id;
  S.sock.send(msg);
  render();
}

export function clearConsole() {
  consoleKey = null;
}

// --- decisions -----------------------------------------------------------------------------------------

/** Keys: the first letter of each decision (but D deal me in, H hints), 1-9 the cards of an indexed one. */
function keyMap() {
  const keys = {};
  const game = S.table ? gameOf(S.table.game) : null;
  for (const d of (game && game.decisions) || []) {
    if (d.indexed) for (let i = 1; i <= 9; i++) keys[String(i)] ??= `${d.name} ${i - 1}`;
    else {
      const k = d.name.charAt(0).toLowerCase();
      if (k !== "d" && k !== "h" && !(k in keys)) keys[k] = d.name;
    }
  }
  return keys;
}

function buttonText(action) {
  const { name, index } = decisionOf(action);
  if (index === null) return titleCase(name);
  const v = myView();
  return `${titleCase(name)} ${cardText(v ? v.cards[index] : null)}`;
}

function fmtEv(ev) {
  const v = Number(ev);
  return (v >= 0 ? "+" : "−") + Math.abs(v).toFixed(3);
}

function hintTag(b, hint, info, action) {
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

function actionButtons(r) {
  const wrap = document.createElement("div");
  wrap.className = "actions";
  const hint = S.hintsOn && S.hint && S.hint.round_id === S.roundId && S.hint.decision === S.decision ? S.hint : null;
  const hintBy = {};
  if (hint) for (const a of hint.actions || []) hintBy[a.action] = a;
  const keys = keyMap();
  for (const action of r.legal_actions) {
    const b = document.createElement("button");
    b.className = `action-btn act-${decisionOf(action).name}`;
    b.dataset.action = action;
    b.dataset.testid = `act-${action.replace(" ", "-")}`;
    b.innerHTML = `${escapeHtml(buttonText(action))}<span class="sub">${escapeHtml(actionLabel(action))}</span>`;
    const key = Object.keys(keys).find((k) => keys[k] === action);
    if (key) b.title = `key ${key.toUpperCase()}`;
    if (hint) hintTag(b, hint, hintBy[action], action);
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

export function act(action) {
  if (!S.round || S.round.to_act !== S.seat) return;
  if (!(S.round.legal_actions || []).includes(action)) return;
  // the act names the decision it answers: a second click, or another window's, changes nothing
  S.sock.send({ type: "act", action, decision: S.decision, request_id: requestId("a") });
}

export function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || !S.table || $("room").hidden) return;
  const tag = (e.target && e.target.tagName) || "";
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  const key = e.key.toLowerCase();
  const keys = keyMap();
  if (keys[key] && S.round && (S.round.legal_actions || []).includes(keys[key])) {
    e.preventDefault();
    act(keys[key]);
  } else if (key === "d" && canBet() && $("place-bets") && !$("place-bets").disabled) {
    e.preventDefault();
    placeBets();
  } else if (key === "h" && $("hint-toggle")) {
    e.preventDefault();
    $("hint-toggle").click();
  }
}

// --- the console -----------------------------------------------------------------------------------------

/** What the console shows now: "connecting", "watch", "bet", "act" or "wait", and the status line. */
function consoleMode() {
  const r = S.round;
  if (S.conn !== "open") return { mode: "connecting", status: S.conn === "reconnecting" ? "Reconnecting…" : "Connecting…" };
  if (S.seat === null) {
    const free = S.table.seats - Object.keys(S.occupants).length;
    if (S.watching) return { mode: "watch", status: "You are watching (public cards only). Register in the lobby to play." };
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
  if (S.tableStatus !== "open" && (!r || r.phase === "settled" || r.phase === "betting"))
    return { mode: "wait", status: `This table is ${escapeHtml(S.tableStatus)} by the casino: no new rounds.` };
  if (S.pendingWager) return { mode: "wait", status: "Placing your bets…" };
  if (r && r.phase === "betting") return { mode: "wait", status: `Bets placed · waiting for the others · deal in ${cd()}` };
  if (r && r.phase === "deciding") return { mode: "wait", status: `${escapeHtml(seatName(r.to_act))} is deciding · ${cd()}` };
  return { mode: "wait", status: "Waiting for the next round." };
}

/** The console is rebuilt only when what it offers changes, so typing into a wager field is never lost. */
export function renderConsole() {
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
    // the whole hint: a new decision's hint with the same best action still brings new EVs (issue 24)
    mode === "act" ? [S.roundId, S.decision, r.legal_actions, v && v.cards, S.hint] : null,
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
  const left = document.createElement("div");
  left.className = "group status";
  const status = document.createElement("div");
  status.className = "status-line";
  status.id = "status-line";
  status.dataset.testid = "status";
  left.appendChild(status);
  box.appendChild(left);
  if (mode === "connecting" || mode === "watch") return;
  if (mode === "bet") box.appendChild(betControls());
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
  const place = $("place-bets");
  if (place) {
    const total = draftCost();
    place.innerHTML = `Deal me in · ${money(total)}`;
    place.disabled = total <= 0;
  }
}

function chipRack() {
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
  return rack;
}

/** The field of one wager: an amount, or a check box for a fixed amount; and its option's choices. */
function wagerField(w, draft) {
  const labels = [];
  const label = document.createElement("label");
  const title = choiceText(w.title);
  if (w.fixed_cents === null) {
    const times = w.cost_multiple > 1 ? ` (×${w.cost_multiple})` : "";
    label.innerHTML = `${escapeHtml(title + times)}<input type="text" inputmode="decimal" id="wager-${w.name}" data-wager="${w.name}" placeholder="$0" value="${
      draft.wagers[w.name] ? (draft.wagers[w.name] / 100).toString() : ""
    }"/>`;
    label.querySelector("input").addEventListener("change", (e) => {
      const v = e.target.value.trim();
      const cents = v ? parseDollars(v) : null;
      if (v && cents === null) {
        toast("A wager is a positive amount in dollars and cents", "error");
        e.target.value = "";
      }
      if (cents === null) delete draft.wagers[w.name];
      else draft.wagers[w.name] = cents;
      draftChanged();
    });
  } else {
    label.className = "check";
    label.innerHTML = `<input type="checkbox" id="wager-${w.name}" ${draft.wagers[w.name] ? "checked" : ""}/> ${escapeHtml(
      `${title} ${money(w.fixed_cents)}`,
    )}`;
    label.querySelector("input").addEventListener("change", (e) => {
      if (e.target.checked) draft.wagers[w.name] = w.fixed_cents;
      else delete draft.wagers[w.name];
      draftChanged();
    });
  }
  labels.push(label);
  if (w.choices.length) {
    const pick = document.createElement("label");
    if (w.optionHelp) pick.title = w.optionHelp;
    pick.innerHTML = `${escapeHtml(`${title} ${w.optionName || "option"}`)}<select id="${w.name}-option">${w.choices
      .map((c) => `<option value="${escapeHtml(c)}" ${c === draft.options[w.name] ? "selected" : ""}>${escapeHtml(choiceText(c))}</option>`)
      .join("")}</select>`;
    pick.querySelector("select").addEventListener("change", (e) => {
      draft.options[w.name] = e.target.value;
      draftChanged();
    });
    labels.push(pick);
  }
  return labels;
}

function betControls() {
  const wrap = document.createElement("div");
  wrap.className = "group bets";
  wrap.appendChild(chipRack());
  const inputs = document.createElement("div");
  inputs.className = "wager-inputs";
  for (const w of wagersOf()) for (const label of wagerField(w, S.draft)) inputs.appendChild(label);
  wrap.appendChild(inputs);

  const total = draftCost();
  const place = document.createElement("button");
  place.className = "btn primary";
  place.id = "place-bets";
  place.dataset.testid = "place-bets";
  place.innerHTML = `Deal me in · ${money(total)}`;
  place.disabled = total <= 0;
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
