// Money and names for display. Money is integer cents everywhere; only this module makes text of it.

export function money(cents, { sign = false } = {}) {
  if (cents === null || cents === undefined || Number.isNaN(cents)) return "—";
  const neg = cents < 0;
  const abs = Math.abs(Math.trunc(cents));
  const dollars = Math.floor(abs / 100).toLocaleString("en-US");
  const rest = abs % 100;
  const text = "$" + dollars + (rest ? "." + String(rest).padStart(2, "0") : "");
  if (neg) return "−" + text;
  return sign && cents > 0 ? "+" + text : text;
}

/** Parse "12.50" / "$1,000" into cents; null when it is not a whole number of cents > 0. */
export function parseDollars(text) {
  const s = String(text).replace(/[$,\s]/g, "");
  if (!/^\d+(\.\d{1,2})?$/.test(s)) return null;
  const [whole, frac = ""] = s.split(".");
  const cents = Number(whole) * 100 + Number(frac.padEnd(2, "0"));
  return cents > 0 && Number.isSafeInteger(cents) ? cents : null;
}

export const GAME_NAMES = {
  "let-it-ride": "Let It Ride",
  "one-eyed-flush": "One Eyed Flush",
  "final-count": "Final Count",
};

export const GAME_TAGLINES = {
  "let-it-ride": "Tens or better pays · Royal flush 1000 to 1",
  "one-eyed-flush": "J♥ J♠ K♦ are wild · Player must be lower",
  "final-count": "Odd total loses · Higher even total wins",
};

export const METER_NAMES = {
  mega: "Mega",
  major: "Major",
  minor: "Minor",
  "one-eyed-flush": "Jackpot",
};

export const WAGER_NAMES = {
  bets: "Bets",
  main: "Bet",
  bonus: "3-Card Bonus",
  progressive: "Progressive",
  jackpot: "Jackpot",
  flip: "Flip Card",
  base: "Base game",
  "bet 1": "Bet 1",
  "bet 2": "Bet 2",
};

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}

/** "flip" option text: "7" -> "Value 7", "ten-value" -> "Ten-value", "one-eyed" -> "One-eyed". */
export function flipOptionText(option) {
  if (!option) return "";
  if (/^\d$/.test(option)) return `Value ${option}`;
  return option === "ten-value" ? "Ten-value" : option === "one-eyed" ? "One-eyed" : option;
}

export function titleCase(s) {
  return String(s).replace(/(^|[\s-])([a-z])/g, (m, p, c) => p + c.toUpperCase());
}

// The server names hands by key (Let It Ride: "tens-or-better") or in words (One Eyed Flush: "Pair (7)").
const HAND_NAMES = {
  nothing: "No pay",
  "high-card": "High card",
  "tens-or-better": "Tens or better",
  "two-pair": "Two pair",
  trips: "Three of a kind",
  straight: "Straight",
  flush: "Flush",
  "full-house": "Full house",
  quads: "Four of a kind",
  "straight-flush": "Straight flush",
  "royal-flush": "Royal flush",
  "mini-royal": "Mini royal",
  pair: "Pair",
};

export function handName(hand) {
  if (hand === null || hand === undefined) return "";
  const s = String(hand);
  if (HAND_NAMES[s]) return HAND_NAMES[s];
  return /^[a-z-]+$/.test(s) ? titleCase(s.replace(/-/g, " ")) : s;
}
