// Playing cards and chips drawn as SVG (no images, no fonts needed for the suit symbols).
//
// A card code is the engine's text form: rank 2-9/T/J/Q/K/A then suit c/d/h/s ("Ah", "Td");
// ``null`` is a face-down card (the client was not sent its face: the server never sends what we may not see).

const SVG = "http://www.w3.org/2000/svg";

export const SUIT_SYMBOL = { c: "♣", d: "♦", h: "♥", s: "♠" };
export const SUIT_NAME = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const RANK_TEXT = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

// Suit shapes in a 100x100 box.
const SUIT_PATHS = {
  h: "M50 90 C 22 66 2 48 6 27 C 10 9 38 4 50 27 C 62 4 90 9 94 27 C 98 48 78 66 50 90 Z",
  d: "M50 3 Q 68 30 88 50 Q 68 70 50 97 Q 32 70 12 50 Q 32 30 50 3 Z",
  s:
    "M50 4 C 78 32 98 46 94 66 C 90 84 64 86 54 70 C 56 82 62 90 70 96 L 30 96 C 38 90 44 82 46 70 " +
    "C 36 86 10 84 6 66 C 2 46 22 32 50 4 Z",
  c:
    "M50 8 A 19 19 0 0 1 65 39 A 19 19 0 1 1 55 68 C 56 82 62 90 70 96 L 30 96 C 38 90 44 82 45 68 " +
    "A 19 19 0 1 1 35 39 A 19 19 0 0 1 50 8 Z",
};

// Pip positions (x, y in a 60x84 card; rotated = drawn upside down) for the number cards.
const COLS = [19, 30, 41];
const ROWS = { top: 17, q1: 28.5, upper: 34, mid: 42, lower: 50, q3: 55.5, bottom: 67 };
const PIPS = {
  A: [],
  2: [[1, "top"], [1, "bottom"]],
  3: [[1, "top"], [1, "mid"], [1, "bottom"]],
  4: [[0, "top"], [2, "top"], [0, "bottom"], [2, "bottom"]],
  5: [[0, "top"], [2, "top"], [1, "mid"], [0, "bottom"], [2, "bottom"]],
  6: [[0, "top"], [2, "top"], [0, "mid"], [2, "mid"], [0, "bottom"], [2, "bottom"]],
  7: [[0, "top"], [2, "top"], [1, "q1"], [0, "mid"], [2, "mid"], [0, "bottom"], [2, "bottom"]],
  8: [[0, "top"], [2, "top"], [1, "q1"], [0, "mid"], [2, "mid"], [1, "q3"], [0, "bottom"], [2, "bottom"]],
  9: [[0, "top"], [2, "top"], [0, "upper"], [2, "upper"], [1, "mid"], [0, "lower"], [2, "lower"], [0, "bottom"], [2, "bottom"]],
  T: [[0, "top"], [2, "top"], [1, "q1"], [0, "upper"], [2, "upper"], [0, "lower"], [2, "lower"], [1, "q3"], [0, "bottom"], [2, "bottom"]],
};

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

/** Put the shared <symbol>s (suits, card back pattern) into the document once. */
export function installSprite(doc = document) {
  if (doc.getElementById("tg-sprite")) return;
  const svg = el("svg", { id: "tg-sprite", width: 0, height: 0, "aria-hidden": "true" });
  svg.style.position = "absolute";
  const defs = el("defs", {}, svg);
  for (const [s, d] of Object.entries(SUIT_PATHS)) {
    const sym = el("symbol", { id: `suit-${s}`, viewBox: "0 0 100 100" }, defs);
    el("path", { d }, sym);
  }
  const pat = el("pattern", { id: "back-lattice", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
  el("rect", { width: 8, height: 8, fill: "#9b1b24" }, pat);
  el("path", { d: "M0 4 H8 M4 0 V8", stroke: "#c9414b", "stroke-width": 1.4 }, pat);
  el("circle", { cx: 4, cy: 4, r: 1.2, fill: "#f3d27a" }, pat);
  const grad = el("linearGradient", { id: "card-face", x1: 0, y1: 0, x2: 0, y2: 1 }, defs);
  el("stop", { offset: "0", "stop-color": "#ffffff" }, grad);
  el("stop", { offset: "1", "stop-color": "#f1efe8" }, grad);
  doc.body.prepend(svg);
}

export function parseCode(code) {
  if (typeof code !== "string" || code.length !== 2) return null;
  const rank = code[0].toUpperCase();
  const suit = code[1].toLowerCase();
  if (!"23456789TJQKA".includes(rank) || !"cdhs".includes(suit)) return null;
  return { rank, suit, red: suit === "h" || suit === "d" };
}

/** Human text of a card: "A♥", "10♦"; a face-down card is "🂠". */
export function cardText(code) {
  const c = parseCode(code);
  if (!c) return "🂠";
  return (RANK_TEXT[c.rank] || c.rank) + SUIT_SYMBOL[c.suit];
}

function pip(parent, suit, x, y, size, flip) {
  const use = el("use", { href: `#suit-${suit}`, x: x - size / 2, y: y - size / 2, width: size, height: size }, parent);
  if (flip) use.setAttribute("transform", `rotate(180 ${x} ${y})`);
  return use;
}

function faceFigure(g, c) {
  // A framed court card: coloured panel, big letter, the suit twice.
  const color = c.red ? "#b3121f" : "#1b1b2a";
  el("rect", { x: 12, y: 14, width: 36, height: 56, rx: 3, fill: c.red ? "#fde7d8" : "#e3e8f4", stroke: color, "stroke-width": 1 }, g);
  el("rect", { x: 15, y: 17, width: 30, height: 50, rx: 2, fill: "none", stroke: "#d4a73a", "stroke-width": 1.2 }, g);
  const letter = el("text", { x: 30, y: 49, "text-anchor": "middle", class: "card-court", fill: color }, g);
  letter.textContent = c.rank;
  pip(g, c.suit, 21, 24, 9, false);
  pip(g, c.suit, 39, 60, 9, true);
}

/**
 * A card as an <svg> element. ``code`` null -> the back. Options: ``wild`` (mark a wild card),
 * ``label`` (small caption under the card, e.g. "FLIP"), ``cls`` extra classes.
 */
export function cardSVG(code, opts = {}) {
  const c = parseCode(code);
  const svg = el("svg", { viewBox: "0 0 60 84", class: "card" + (opts.cls ? " " + opts.cls : "") });
  svg.setAttribute("role", "img");
  if (!c) {
    svg.classList.add("card-back");
    svg.setAttribute("aria-label", "face-down card");
    el("rect", { x: 0.5, y: 0.5, width: 59, height: 83, rx: 5, fill: "#fbfaf6", stroke: "#777", "stroke-width": 0.6 }, svg);
    el("rect", { x: 4, y: 4, width: 52, height: 76, rx: 3, fill: "url(#back-lattice)", stroke: "#7a0f18", "stroke-width": 0.8 }, svg);
    el("rect", { x: 7, y: 7, width: 46, height: 70, rx: 2, fill: "none", stroke: "#f3d27a", "stroke-width": 0.7, opacity: 0.8 }, svg);
    el("ellipse", { cx: 30, cy: 42, rx: 11, ry: 15, fill: "#7a0f18", stroke: "#f3d27a", "stroke-width": 0.8 }, svg);
    const t = el("text", { x: 30, y: 46.5, "text-anchor": "middle", class: "card-back-mark" }, svg);
    t.textContent = "TG";
    return svg;
  }
  svg.dataset.card = code;
  svg.setAttribute("aria-label", cardText(code));
  svg.classList.add(c.red ? "red" : "black");
  const color = c.red ? "#c8102e" : "#16161f";
  el("rect", { x: 0.5, y: 0.5, width: 59, height: 83, rx: 5, fill: "url(#card-face)", stroke: "#8a8a8a", "stroke-width": 0.6 }, svg);
  const g = el("g", { fill: color }, svg);
  const rank = RANK_TEXT[c.rank] || c.rank;
  // Corner indices, top-left and (rotated) bottom-right.
  for (const flip of [false, true]) {
    const corner = el("g", flip ? { transform: "rotate(180 30 42)" } : {}, g);
    const t = el("text", { x: 7.5, y: 13, "text-anchor": "middle", class: "card-index" + (rank.length > 1 ? " narrow" : "") }, corner);
    t.textContent = rank;
    pip(corner, c.suit, 7.5, 19.5, 7, false);
  }
  if ("JQK".includes(c.rank)) {
    faceFigure(g, c);
  } else if (c.rank === "A") {
    pip(g, c.suit, 30, 42, 26, false);
  } else {
    for (const [col, row] of PIPS[c.rank]) {
      const y = ROWS[row];
      pip(g, c.suit, COLS[col], y, 10, y > 42);
    }
  }
  if (opts.wild) {
    svg.classList.add("wild");
    const badge = el("g", { class: "wild-badge" }, svg);
    el("rect", { x: 14, y: 74, width: 32, height: 8, rx: 4, fill: "#f3c623", stroke: "#7a5a00", "stroke-width": 0.5 }, badge);
    const t = el("text", { x: 30, y: 80.2, "text-anchor": "middle", class: "wild-text" }, badge);
    t.textContent = "WILD";
  }
  return svg;
}

/** An empty place where a card will go (dotted outline on the felt). */
export function cardSlot(label = "") {
  const svg = el("svg", { viewBox: "0 0 60 84", class: "card slot" });
  el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, fill: "none", stroke: "rgba(255,255,255,.45)", "stroke-width": 1.2, "stroke-dasharray": "3 3" }, svg);
  if (label) {
    const t = el("text", { x: 30, y: 46, "text-anchor": "middle", class: "slot-text" }, svg);
    t.textContent = label;
  }
  return svg;
}

// --- chips -----------------------------------------------------------------------------------

export const DENOMINATIONS = [
  { cents: 100, color: "#f4f4f0", edge: "#1f4fa8", ink: "#1f4fa8" },
  { cents: 500, color: "#c8202f", edge: "#ffffff", ink: "#ffffff" },
  { cents: 2500, color: "#1f8a3b", edge: "#ffffff", ink: "#ffffff" },
  { cents: 10000, color: "#1d1d1f", edge: "#e8c25a", ink: "#e8c25a" },
  { cents: 50000, color: "#6b2fa3", edge: "#f2e6ff", ink: "#ffffff" },
  { cents: 100000, color: "#e5892a", edge: "#3b2200", ink: "#3b2200" },
];

export function chipLabel(cents) {
  const d = cents / 100;
  if (d >= 1000) return `${d / 1000}K`;
  if (Number.isInteger(d)) return String(d);
  return d.toFixed(2);
}

/** One chip face as <svg>. */
export function chipSVG(denom, opts = {}) {
  const svg = el("svg", { viewBox: "0 0 40 40", class: "chip" + (opts.cls ? " " + opts.cls : "") });
  el("circle", { cx: 20, cy: 20, r: 19, fill: denom.color, stroke: "rgba(0,0,0,.45)", "stroke-width": 1 }, svg);
  el("circle", { cx: 20, cy: 20, r: 17, fill: "none", stroke: denom.edge, "stroke-width": 4, "stroke-dasharray": "5.3 3.6" }, svg);
  el("circle", { cx: 20, cy: 20, r: 12, fill: denom.color, stroke: denom.edge, "stroke-width": 0.8, "stroke-dasharray": "1.5 1.2" }, svg);
  const t = el("text", { x: 20, y: 24, "text-anchor": "middle", class: "chip-text", fill: denom.ink }, svg);
  t.textContent = opts.text ?? chipLabel(denom.cents);
  return svg;
}

/** Break an amount into chips, largest first (at most ``max`` chips drawn). */
export function chipsFor(cents, max = 6) {
  const out = [];
  let rest = cents;
  for (const d of [...DENOMINATIONS].reverse()) {
    while (rest >= d.cents && out.length < max) {
      out.push(d);
      rest -= d.cents;
    }
  }
  if (out.length === 0 && cents > 0) out.push(DENOMINATIONS[0]);
  return out;
}

/** A stack of chips for a wager (drawn as an offset pile) with the amount printed on the top chip. */
export function chipStack(cents, opts = {}) {
  const wrap = document.createElement("div");
  wrap.className = "chip-stack" + (opts.cls ? " " + opts.cls : "");
  wrap.dataset.cents = String(cents);
  const chips = chipsFor(cents).reverse();
  chips.forEach((d, i) => {
    const top = i === chips.length - 1;
    const chip = chipSVG(d, { text: top ? opts.text ?? chipLabel(cents) : "" });
    chip.style.setProperty("--i", String(i));
    wrap.appendChild(chip);
  });
  return wrap;
}
