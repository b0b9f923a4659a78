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

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}

/** A choice as the server names it ("ten-value", "7"), for reading: "Ten-value", "7". */
export function choiceText(choice) {
  if (choice === null || choice === undefined) return "";
  const s = String(choice);
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function titleCase(s) {
  return String(s).replace(/(^|[\s-])([a-z])/g, (m, p, c) => p + c.toUpperCase());
}

/** A hand as the server names it, by key ("royal-flush") or in words ("Pair (7)"), for reading. */
export function handName(hand) {
  if (hand === null || hand === undefined) return "";
  const s = String(hand);
  return /^[a-z-]+$/.test(s) ? choiceText(s.replace(/-/g, " ")) : s;
}
