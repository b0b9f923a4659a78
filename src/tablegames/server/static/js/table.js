// The felt: seats around a half-moon table, the dealer's place, community cards / Flip Card, chips, results.
//
// ``renderTable(root, scene, handlers)`` redraws everything from a *scene* (plain data, see ``app.js``):
//   game, seatCount, players {seat: {name, you}}, mySeat, round (the server's round view or null),
//   results {seat: {net, hand, lines}}, draft {wager: cents} (my unsent wagers), draftOption, meters.

import { cardSVG, cardSlot, cardText, chipStack, ONE_EYED } from "./cards.js";
import { GAME_NAMES, GAME_TAGLINES, WAGER_NAMES, escapeHtml, flipOptionText, handName, money } from "./format.js";

const SVGNS = "http://www.w3.org/2000/svg";

// Betting spots of a seat by game: [wager key, label, kind]. Let It Ride's "bets" is three equal spots.
export const SPOTS = {
  "let-it-ride": [
    ["bet 1", "1", "main"],
    ["bet 2", "2", "main"],
    ["bet $", "$", "main"],
    ["bonus", "3-CARD BONUS", "side"],
    ["progressive", "PROG", "coin"],
  ],
  "one-eyed-flush": [
    ["main", "BET", "main"],
    ["flip", "FLIP", "side"],
    ["jackpot", "JACKPOT", "coin"],
  ],
  "final-count": [["main", "BET", "main"]],
};

/** Seat centres (percent of the table box) on the table's curved edge; seat 1 on the dealer's left. */
export function seatPositions(n) {
  const out = {};
  const span = n <= 1 ? 0 : Math.min(0.8 * Math.PI, 0.14 * Math.PI * (n - 1));
  for (let i = 1; i <= n; i++) {
    const t = n === 1 ? Math.PI / 2 : Math.PI / 2 - span / 2 + (span * (i - 1)) / (n - 1);
    out[i] = { x: 50 + 39 * Math.cos(t), y: 6 + 76 * Math.sin(t), angle: (t - Math.PI / 2) * (180 / Math.PI) };
  }
  return out;
}

function div(cls, parent, html) {
  const d = document.createElement("div");
  if (cls) d.className = cls;
  if (html !== undefined) d.innerHTML = html;
  if (parent) parent.appendChild(d);
  return d;
}

/** Amount on a spot: Let It Ride bets 1/2/$ each hold the "bets" amount until pulled (pulled -> returned). */
function spotAmount(game, seatView, key, draft) {
  const wagers = seatView ? seatView.wagers : draft || {};
  if (game === "let-it-ride" && key.startsWith("bet ")) {
    const amount = wagers.bets;
    if (!amount) return 0;
    if (seatView && seatView.pulled && seatView.pulled.includes(key.slice(4))) return 0;
    return amount;
  }
  return wagers[key] || 0;
}

function feltArc(game) {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", "0 0 1000 560");
  svg.setAttribute("class", "felt-print");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.innerHTML = `
    <defs>
      <path id="arc-title" d="M 250 262 Q 500 358 750 262" />
      <path id="arc-tag" d="M 170 282 Q 500 410 830 282" />
    </defs>
    <text class="felt-title"><textPath href="#arc-title" startOffset="50%" text-anchor="middle">${escapeHtml(
      (GAME_NAMES[game] || game).toUpperCase(),
    )}</textPath></text>
    <text class="felt-tag"><textPath href="#arc-tag" startOffset="50%" text-anchor="middle">${escapeHtml(
      (GAME_TAGLINES[game] || "").toUpperCase(),
    )}</textPath></text>
    <path d="M 120 60 Q 500 330 880 60" class="felt-line" />`;
  return svg;
}

function dealerTray(parent) {
  const tray = div("dealer-tray", parent);
  const colors = ["#1d1d1f", "#1f8a3b", "#c8202f", "#f4f4f0", "#6b2fa3", "#1d1d1f", "#1f8a3b", "#c8202f", "#f4f4f0"];
  for (const c of colors) {
    const col = div("tray-col", tray);
    col.style.setProperty("--chip", c);
  }
}

function cardsRow(codes, opts = {}) {
  const row = div("cards " + (opts.cls || ""));
  const list = codes || [];
  list.forEach((code, i) => {
    const wild = opts.game === "one-eyed-flush" && code && ONE_EYED.has(code);
    const svg = cardSVG(code, { wild, cls: opts.cardCls ? opts.cardCls(i, code) : "" });
    svg.dataset.index = String(i);
    if (opts.onClick) {
      svg.classList.add("clickable");
      svg.addEventListener("click", () => opts.onClick(i, code));
    }
    row.appendChild(svg);
  });
  for (let i = list.length; i < (opts.slots || 0); i++) row.appendChild(cardSlot(opts.slotLabel || ""));
  return row;
}

function renderDealer(felt, scene) {
  const { game, round } = scene;
  const area = div("dealer-area", felt);
  div("area-label", area, "DEALER");
  if (game === "let-it-ride") {
    // R-LIR-2/3: the dealer's first card is burned, the other two become the community cards.
    const dealt = round && round.phase !== "betting";
    const community = round ? round.community || [] : [];
    const codes = dealt ? [community[0] ?? null, community[1] ?? null] : [];
    const wrap = div("community", area);
    const row = cardsRow(codes, { slots: 2, slotLabel: "", cls: "community-cards" });
    wrap.appendChild(row);
    div("area-sub", wrap, "COMMUNITY CARDS");
    return;
  }
  const codes = round && round.phase !== "betting" ? round.dealer : [];
  const fcLine = game === "final-count" && codes.length ? fcTotal(codes, scene.rules) : "";
  const row = cardsRow(codes, {
    game,
    slots: 3,
    cls: "dealer-cards",
    cardCls: (i) => (game === "one-eyed-flush" && i === 1 && !(round && round.phase === "settled") ? "flip-card" : ""),
  });
  area.appendChild(row);
  if (game === "one-eyed-flush") {
    const flip = round && round.flip_card;
    const settled = round && round.phase === "settled";
    div("flip-label", area, !flip ? "FLIP CARD DEALT FACE UP" : settled ? `FLIP CARD WAS ${cardText(flip)}` : "FLIP CARD");
  }
  if (scene.dealerHand) div("hand-name dealer-hand", area, escapeHtml(scene.dealerHand));
  else if (fcLine) div("fc-total", area, escapeHtml(fcLine));
}

/**
 * Final Count: the total of the cards showing, for reading the table (R-FC-1 values; ``face-value=0`` rule
 * respected). Display only: the server decides every outcome.
 */
export function fcTotal(cards, rules) {
  const shown = (cards || []).filter(Boolean);
  if (!shown.length) return "";
  const faceZero = rules && String(rules["face-value"]) === "0";
  let total = 0;
  for (const c of shown) {
    const r = c[0];
    total += r === "A" ? 1 : r === "T" ? 10 : "JQK".includes(r) ? (faceZero ? 0 : 10) : Number(r);
  }
  const label = shown.length < (cards || []).length ? "showing" : "total";
  return `${label} ${total} · ${total % 2 ? "odd" : "even"}`;
}

function renderSpots(seatEl, scene, seatNo, seatView) {
  const { game } = scene;
  const mine = seatNo === scene.mySeat;
  const draft = mine && (!seatView || !Object.keys(seatView.wagers).length) ? scene.draft : null;
  const spots = div("spots", seatEl);
  const outcomes = (scene.results[seatNo] && scene.results[seatNo].outcomes) || {};
  for (const [key, label, kind] of SPOTS[game] || []) {
    const spot = div(`spot spot-${kind}`, spots);
    spot.dataset.wager = key;
    div("spot-label", spot, escapeHtml(label));
    const amount = spotAmount(game, seatView && Object.keys(seatView.wagers).length ? seatView : null, key, draft);
    if (amount) {
      const stack = chipStack(amount);
      if (draft) stack.classList.add("draft");
      spot.appendChild(stack);
      spot.classList.add("has-chips");
    }
    const outcome = outcomes[key] || (key.startsWith("bet ") ? outcomes.base : undefined);
    if (outcome) spot.classList.add("outcome-" + outcome);
    if (key === "flip") {
      const opt = seatView && seatView.options ? seatView.options.flip : draft ? scene.draftOption : null;
      if (opt && amount) div("spot-option", spot, escapeHtml(flipOptionText(opt)));
    }
    if (mine && scene.phaseOpen && scene.handlers && scene.handlers.onSpot) {
      spot.classList.add("clickable");
      spot.title = `Add chips to ${WAGER_NAMES[key] || key}`;
      spot.addEventListener("click", () => scene.handlers.onSpot(key));
    }
  }
}

function renderSeat(felt, scene, seatNo, pos) {
  const { game, round } = scene;
  const player = scene.players[seatNo];
  const seatView = round ? round.seats.find((s) => s.seat === seatNo) : null;
  const mine = seatNo === scene.mySeat;
  const seatEl = div("seat", felt);
  seatEl.id = `seat-${seatNo}`;
  seatEl.dataset.seat = String(seatNo);
  seatEl.style.left = pos.x + "%";
  seatEl.style.top = pos.y + "%";
  seatEl.style.setProperty("--tilt", pos.angle * 0.35 + "deg");
  if (mine) seatEl.classList.add("mine");
  if (!player) seatEl.classList.add("empty");
  if (round && round.to_act === seatNo) seatEl.classList.add("acting");
  if (seatView && seatView.out) seatEl.classList.add("out");

  const playing = seatView && Object.keys(seatView.wagers).length > 0;
  if (playing && round.phase !== "betting") {
    const mineToAct = mine && round.to_act === seatNo;
    const legal = new Set(round.legal_actions || []);
    const onClick =
      mineToAct && game === "one-eyed-flush" && scene.handlers && scene.handlers.onCard
        ? (i) => legal.has(`discard ${i}`) && scene.handlers.onCard(i)
        : null;
    const row = cardsRow(seatView.cards, {
      game,
      cls: "hand",
      onClick,
      cardCls: (i, code) => {
        const cls = [];
        if (game === "final-count" && i === 2) cls.push("third");
        if (scene.selectedCard === i && mine) cls.push("selected");
        if (code && scene.newCards && scene.newCards.has(`${seatNo}:${i}:${code}`)) cls.push("dealt");
        return cls.join(" ");
      },
    });
    seatEl.appendChild(row);
    if (game === "final-count") {
      const t = fcTotal(seatView.cards, scene.rules);
      if (t) div("fc-total", seatEl, escapeHtml(t));
    }
  } else if (playing) {
    div("cards hand waiting", seatEl);
  } else {
    div("cards hand none", seatEl);
  }

  renderSpots(seatEl, scene, seatNo, seatView);

  const plate = div("nameplate", seatEl);
  if (player) {
    plate.innerHTML = `<span class="seat-no">${seatNo}</span><span class="player-name">${escapeHtml(player.name)}</span>${
      mine ? '<span class="you-tag">YOU</span>' : ""
    }`;
    if (player.connected === false) plate.classList.add("away");
  } else {
    plate.innerHTML = `<span class="seat-no">${seatNo}</span><span class="player-name open">open seat</span>`;
    if (scene.handlers && scene.handlers.onSit && !scene.mySeat) {
      const b = document.createElement("button");
      b.className = "sit-btn";
      b.textContent = "Sit here";
      b.dataset.testid = `sit-${seatNo}`;
      b.addEventListener("click", () => scene.handlers.onSit(seatNo));
      plate.appendChild(b);
    }
  }
  const status = div("seat-status", seatEl);
  const result = scene.results[seatNo];
  if (result) {
    const net = result.net;
    status.classList.add(net > 0 ? "won" : net < 0 ? "lost" : "push");
    status.innerHTML =
      (result.hand ? `<span class="hand-name">${escapeHtml(handName(result.hand))}</span>` : "") +
      `<span class="net">${net === 0 ? "PUSH" : money(net, { sign: true })}</span>`;
  } else if (round && round.to_act === seatNo) {
    status.classList.add("turn");
    status.innerHTML = `${mine ? "YOUR TURN" : "DECIDING…"} <span class="seat-timer" data-countdown></span>`;
  } else if (seatView && seatView.out) {
    status.classList.add("lost");
    const acted = scene.lastActions && scene.lastActions[seatNo];
    status.textContent = (acted ? acted + " · " : "") + (game === "one-eyed-flush" ? "BUST" : "ODD TOTAL");
  } else if (scene.lastActions && scene.lastActions[seatNo]) {
    status.classList.add("acted");
    status.textContent = scene.lastActions[seatNo];
  } else if (round && round.phase === "betting" && playing) {
    status.classList.add("ready");
    status.textContent = "BET PLACED";
  }
  return seatEl;
}

function renderMeters(parent, scene) {
  const meters = scene.meters || {};
  const names = Object.keys(meters);
  if (!names.length) return;
  const sign = div("meter-sign", parent);
  for (const name of names) {
    const m = div("meter meter-" + name, sign);
    m.dataset.meter = name;
    div("meter-name", m, escapeHtml(name === "one-eyed-flush" ? "ONE EYED FLUSH JACKPOT" : name.toUpperCase()));
    div("meter-value", m, escapeHtml(money(meters[name])));
  }
}

/** Draw the whole table into ``root`` from ``scene``. */
export function renderTable(root, scene) {
  root.replaceChildren();
  root.className = `table-scene game-${scene.game} seats-${scene.seatCount}`;
  renderMeters(root, scene);
  const wrap = div("table-wrap", root);
  const rail = div("rail", wrap);
  const felt = div("felt", rail);
  felt.appendChild(feltArc(scene.game));
  dealerTray(felt);
  renderDealer(felt, scene);
  const positions = seatPositions(scene.seatCount);
  for (let s = 1; s <= scene.seatCount; s++) renderSeat(felt, scene, s, positions[s]);
  if (scene.commitment) {
    const c = div("commitment", felt);
    c.title = `SHA-256 commitment of this round's server seed: ${scene.commitment}`;
    c.textContent = `DECK SEALED · ${String(scene.commitment).slice(0, 12)}…`;
  }
  if (scene.round) {
    const r = scene.round;
    const badge = div("round-badge", felt);
    badge.textContent = `ROUND ${r.round_no} · ${String(r.phase).toUpperCase()}`;
  }
  return root;
}
