// The felt: seats around a half-moon table, the dealer's place, chips, results, drawn from data alone.
//
// ``renderTable(root, scene)`` redraws everything from a *scene* (plain data, built by ``room.js``):
//   game (its GET /games entry), layout (``feltFor``: the game's felt module over the generic layout),
//   seatCount, players {seat: {name}}, mySeat, round (the server's round view or null),
//   results {seat: {net, hand, outcomes}}, draft {wager: cents} (my unsent wagers), draftOptions {wager: choice},
//   meters, dealerHand, lastActions, newCards, commitment, handlers.
// What a hand is worth and whether a seat may act come from the view: nothing here knows a game's rules.

import { cardSVG, cardSlot, cardText, chipStack } from "./cards.js";
import { choiceText, escapeHtml, handName, money } from "./format.js";
import { feltFor } from "./felt/default.js";

const SVGNS = "http://www.w3.org/2000/svg";

/** The layout of ``game`` (a GET /games entry): its felt module (loaded by its path), else the generic one. */
export async function layoutOf(game) {
  if (!game || !game.felt) return feltFor(game || {});
  try {
    const mod = await import(new URL("../" + game.felt, import.meta.url).href);
    return feltFor(game, mod.default);
  } catch (err) {
    console.warn(`felt ${game.felt}: ${err}; the generic layout is used`);
    return feltFor(game);
  }
}

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

/** The seat's hand as the view describes it ({description, total}), or null. */
function handOf(round, seatNo) {
  const hands = round && round.hands;
  return (hands && hands[String(seatNo)]) || null;
}

/** Chips on a spot: the amount of its wager (a part of a multi-bet wager only while it is up). */
function spotAmount(layout, round, seatNo, spot, wagers) {
  const amount = wagers[spot.wager] || 0;
  if (!amount) return 0;
  if (spot.part !== undefined && round && !layout.partUp(round, seatNo, spot.part)) return 0;
  return amount;
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
      String(game.title || game.key || "").toUpperCase(),
    )}</textPath></text>
    <text class="felt-tag"><textPath href="#arc-tag" startOffset="50%" text-anchor="middle">${escapeHtml(
      String(game.tagline || "").toUpperCase(),
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

/** ``el`` acts like a button: a click, or Enter / Space when it has the focus (issue 24: every action by
 * keyboard); ``label`` is what a screen reader calls it. */
function pressable(el, label, fn) {
  el.setAttribute("role", "button");
  el.setAttribute("tabindex", "0");
  el.setAttribute("aria-label", label);
  el.addEventListener("click", fn);
  el.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault();
    e.stopPropagation();
    fn();
  });
}

function cardsRow(codes, layout, opts = {}) {
  const row = div("cards " + (opts.cls || ""));
  const list = codes || [];
  list.forEach((code, i) => {
    const wild = !!code && layout.wild.has(code);
    const svg = cardSVG(code, { wild, cls: opts.cardCls ? opts.cardCls(i, code) : "" });
    svg.dataset.index = String(i);
    if (opts.onClick && opts.onClick(i, true)) {
      svg.classList.add("clickable");
      pressable(svg, `card ${i + 1}${code ? ` (${cardText(code)})` : ""}`, () => opts.onClick(i, false));
    }
    row.appendChild(svg);
  });
  for (let i = list.length; i < (opts.slots || 0); i++) row.appendChild(cardSlot(""));
  return row;
}

function renderDealer(felt, scene) {
  const { layout, round } = scene;
  const d = layout.dealer;
  const area = div("dealer-area", felt);
  div("area-label", area, escapeHtml(d.label || "DEALER"));
  const wrap = d.sub ? div("community", area) : area;
  const row = cardsRow(d.cards(round), layout, {
    slots: d.slots,
    cls: d.cls,
    cardCls: d.cardClass ? (i) => d.cardClass(i, round) : null,
  });
  wrap.appendChild(row);
  if (d.sub) div("area-sub", wrap, escapeHtml(d.sub));
  if (d.note) div("flip-label", area, escapeHtml(d.note(round)));
  const shown = round && round.dealer_hand ? round.dealer_hand.description : "";
  // the view's words for the dealer's cards, else the server's hand event once the dealer's hand is public
  if (shown) div("hand-desc dealer-desc", area, escapeHtml(shown));
  else if (scene.dealerHand) div("hand-name dealer-hand", area, escapeHtml(handName(scene.dealerHand)));
}

function renderSpots(seatEl, scene, seatNo, seatView) {
  const { layout, round } = scene;
  const mine = seatNo === scene.mySeat;
  // my unsent wagers while I may bet (over a finished round's), else what the seat has placed
  const draft = mine && scene.draft ? scene.draft : null;
  const placed = !draft && seatView && Object.keys(seatView.wagers).length ? seatView.wagers : null;
  const spots = div("spots", seatEl);
  const outcomes = (scene.results[seatNo] && scene.results[seatNo].outcomes) || {};
  const titles = Object.fromEntries((scene.game.wagers || []).map((w) => [w.name, w.title]));
  for (const spot of layout.spots) {
    const el = div(`spot spot-${spot.kind}`, spots);
    el.dataset.wager = spot.key;
    div("spot-label", el, escapeHtml(spot.label));
    const amount = spotAmount(layout, placed ? round : null, seatNo, spot, placed || draft || {});
    if (amount) {
      const stack = chipStack(amount);
      if (draft) stack.classList.add("draft");
      el.appendChild(stack);
      el.classList.add("has-chips");
    }
    const outcome = (spot.results || [spot.key]).map((k) => outcomes[k]).find((o) => o);
    if (outcome) el.classList.add("outcome-" + outcome);
    const option = placed ? (seatView.options || {})[spot.wager] : draft ? (scene.draftOptions || {})[spot.wager] : null;
    if (option && amount) div("spot-option", el, escapeHtml(choiceText(option)));
    if (mine && scene.phaseOpen && scene.handlers && scene.handlers.onSpot) {
      el.classList.add("clickable");
      el.title = `Add chips to ${titles[spot.wager] || spot.wager}`;
      pressable(el, el.title, () => scene.handlers.onSpot(spot.wager));
    }
  }
}

/** The card a click on my i-th card plays: the indexed decision (GET /games) when it is legal now. */
function cardAction(scene, seatNo) {
  const { round, game } = scene;
  if (seatNo !== scene.mySeat || !round || round.to_act !== seatNo) return null;
  if (!scene.handlers || !scene.handlers.onCard) return null;
  const indexed = (game.decisions || []).find((d) => d.indexed);
  if (!indexed) return null;
  const legal = new Set(round.legal_actions || []);
  return (i, probe) => {
    const action = `${indexed.name} ${i}`;
    if (!legal.has(action)) return false;
    if (!probe) scene.handlers.onCard(action);
    return true;
  };
}

function renderSeat(felt, scene, seatNo, pos) {
  const { layout, round } = scene;
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
  const hand = handOf(round, seatNo);
  if (playing && round.phase !== "betting") {
    const row = cardsRow(seatView.cards, layout, {
      cls: "hand",
      onClick: cardAction(scene, seatNo),
      cardCls: (i, code) => {
        const cls = [layout.handCardClass(i)];
        if (scene.selectedCard === i && mine) cls.push("selected");
        if (code && scene.newCards && scene.newCards.has(`${seatNo}:${i}:${code}`)) cls.push("dealt");
        return cls.filter(Boolean).join(" ");
      },
    });
    seatEl.appendChild(row);
    if (hand && hand.description) div("hand-desc", seatEl, escapeHtml(hand.description));
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
    }${player.bot ? `<span class="bot-tag" data-testid="bot-${seatNo}" title="a practice bot: it plays the exact strategy">BOT</span>` : ""}`;
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
    if (scene.handlers && scene.handlers.onAddBot) {
      const b = document.createElement("button");
      b.className = "sit-btn bot-btn";
      b.textContent = "Add bot";
      b.dataset.testid = `add-bot-${seatNo}`;
      b.addEventListener("click", () => scene.handlers.onAddBot(seatNo));
      plate.appendChild(b);
    }
  }
  renderStatus(seatEl, scene, seatNo, seatView, playing, hand);
  return seatEl;
}

function renderStatus(seatEl, scene, seatNo, seatView, playing, hand) {
  const { round } = scene;
  const status = div("seat-status", seatEl);
  const result = scene.results[seatNo];
  const acted = scene.lastActions && scene.lastActions[seatNo];
  if (result) {
    const net = result.net;
    status.classList.add(net > 0 ? "won" : net < 0 ? "lost" : "push");
    status.innerHTML =
      (result.hand ? `<span class="hand-name">${escapeHtml(handName(result.hand))}</span>` : "") +
      `<span class="net">${net === 0 ? "PUSH" : money(net, { sign: true })}</span>`;
  } else if (round && round.to_act === seatNo) {
    status.classList.add("turn");
    status.innerHTML = `${seatNo === scene.mySeat ? "YOUR TURN" : "DECIDING…"} <span class="seat-timer" data-countdown></span>`;
  } else if (seatView && seatView.out) {
    status.classList.add("lost");
    const why = hand && hand.description ? hand.description.toUpperCase() : scene.layout.outLabel;
    status.textContent = (acted ? acted + " · " : "") + why;
  } else if (acted) {
    status.classList.add("acted");
    status.textContent = acted;
  } else if (round && round.phase === "betting" && playing) {
    status.classList.add("ready");
    status.textContent = "BET PLACED";
  }
}

function renderMeters(parent, scene) {
  const meters = scene.meters || {};
  const names = Object.keys(meters);
  if (!names.length) return;
  const titles = Object.fromEntries((scene.game.meters || []).map((m) => [m.name, m.title]));
  const big = new Set(scene.layout.bigMeters || []);
  const sign = div("meter-sign", parent);
  for (const name of names) {
    const m = div("meter meter-" + name + (big.has(name) ? " meter-big" : ""), sign);
    m.dataset.meter = name;
    div("meter-name", m, escapeHtml(String(titles[name] || name).toUpperCase()));
    div("meter-value", m, escapeHtml(money(meters[name])));
  }
}

/** Draw the whole table into ``root`` from ``scene``. */
export function renderTable(root, scene) {
  const game = scene.game || {};
  scene = { ...scene, game, layout: scene.layout || feltFor(game), results: scene.results || {} };
  if (scene.round && scene.round.wild_cards) {
    // the table's wild cards, as its view lists them (a rule set may change them): drawn marked
    scene.layout = { ...scene.layout, wild: new Set(scene.round.wild_cards) };
  }
  root.replaceChildren();
  root.className = `table-scene game-${game.key} seats-${scene.seatCount} ${scene.layout.sceneClass || ""}`.trim();
  renderMeters(root, scene);
  const wrap = div("table-wrap", root);
  const rail = div("rail", wrap);
  const felt = div("felt", rail);
  felt.appendChild(feltArc(game));
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
