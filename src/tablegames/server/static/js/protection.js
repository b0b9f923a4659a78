// Player protection (issue 26, docs/protection.md): limits at registration and in the wallet, a break or
// self-exclusion, the reality-check dialog. The page draws what GET /protection and the server's messages say;
// every rule (the lowest limit wins, the cooling-off, who may play) is the server's.

import { api } from "./api.js";
import { escapeHtml, money, parseDollars } from "./format.js";
import { $, S, toast } from "./state.js";

// the limits a player may set: their words and unit (the server checks every value)
const LIMITS = [
  ["deposit_day", "Deposits per day", "$"],
  ["deposit_week", "Deposits per week", "$"],
  ["deposit_month", "Deposits per month", "$"],
  ["loss_day", "Losses per day", "$"],
  ["loss_week", "Losses per week", "$"],
  ["loss_month", "Losses per month", "$"],
  ["session_minutes", "Session length (minutes)", "min"],
  ["reality_minutes", "Reality check every (minutes)", "min"],
];

const dateTime = (epoch) => new Date(epoch * 1000).toLocaleString();

function minutesText(seconds) {
  const m = Math.floor(seconds / 60);
  return m >= 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m} min`;
}

/** The inputs of one limits grid (``prefix``: "register" or "limits"). */
function drawGrid(box, prefix) {
  box.replaceChildren();
  for (const [kind, label, unit] of LIMITS) {
    const l = document.createElement("label");
    l.innerHTML = `<span>${escapeHtml(label)}</span>`;
    const input = document.createElement("input");
    input.id = `${prefix}-${kind}`;
    input.dataset.testid = `${prefix}-${kind}`;
    input.inputMode = unit === "$" ? "decimal" : "numeric";
    input.placeholder = "no limit";
    input.size = 8;
    l.appendChild(input);
    const now = document.createElement("span");
    now.className = "limit-now";
    now.id = `${prefix}-${kind}-now`;
    l.appendChild(now);
    box.appendChild(l);
  }
}

/** The value typed for a limit: cents or minutes, null for an empty field, undefined when it is not a number. */
function typed(kind, text) {
  const unit = LIMITS.find((x) => x[0] === kind)[2];
  const s = String(text).trim();
  if (!s) return null;
  if (unit === "$") return parseDollars(s) ?? undefined;
  return /^\d+$/.test(s) ? Number(s) : undefined;
}

const shown = (kind, value) =>
  value === null || value === undefined ? "" : LIMITS.find((x) => x[0] === kind)[2] === "$" ? (value / 100).toString() : String(value);

/** The limits typed at registration ({} when none): sent with POST /players. */
export function registrationLimits() {
  const out = {};
  for (const [kind] of LIMITS) {
    const v = typed(kind, $(`register-${kind}`).value);
    if (v === undefined) throw new Error(`${LIMITS.find((x) => x[0] === kind)[1]}: type a number, or leave it empty`);
    if (v !== null) out[kind] = v;
  }
  return out;
}

export function installProtection() {
  drawGrid($("register-limits-grid"), "register");
  drawGrid($("limits-grid"), "limits");
  $("limits-form").addEventListener("submit", saveLimits);
  $("btn-protect").addEventListener("click", () => $("protect-dialog").showModal());
  $("protect-cancel").addEventListener("click", () => $("protect-dialog").close());
  $("break-btn").addEventListener("click", () => exclude("break", $("break-period").value));
  $("exclude-btn").addEventListener("click", () => exclude("self-exclusion", $("exclusion-period").value));
  $("reality-continue").addEventListener("click", () => $("reality-dialog").close());
  $("reality-stop").addEventListener("click", stopPlaying);
}

/** The wallet's limits panel, as GET /protection says. */
export async function refreshProtection() {
  const panel = $("protection-panel");
  panel.hidden = !S.me;
  if (!S.me) return;
  let p;
  try {
    p = await api("GET", "/protection");
  } catch (err) {
    $("exclusion-status").textContent = err.message;
    return;
  }
  S.protection = p;
  $("previous-login").textContent = p.previous_login_at ? `Your previous visit began ${dateTime(p.previous_login_at)}.` : "";
  const ex = p.exclusion;
  $("exclusion-status").textContent = ex
    ? `${ex.kind === "break" ? "You are taking a break" : "You have excluded yourself"} until ${dateTime(ex.ends_at)}.`
    : "";
  for (const [kind, , unit] of LIMITS) {
    const limit = p.limits[kind];
    const input = $(`limits-${kind}`);
    if (document.activeElement !== input) input.value = shown(kind, limit.amount);
    input.dataset.was = shown(kind, limit.amount);
    const parts = [];
    if (unit === "$" && p.used[kind] !== undefined) parts.push(`used ${money(p.used[kind])}`);
    if (limit.pending)
      parts.push(
        `${limit.pending_amount === null ? "none" : unit === "$" ? money(limit.pending_amount) : `${limit.pending_amount} min`} from ${dateTime(limit.effective_at)}`,
      );
    $(`limits-${kind}-now`).textContent = parts.join(" · ");
  }
}

async function saveLimits(ev) {
  ev.preventDefault();
  const changes = {};
  for (const [kind, label] of LIMITS) {
    const input = $(`limits-${kind}`);
    if (input.value.trim() === (input.dataset.was || "")) continue;
    const v = typed(kind, input.value);
    if (v === undefined) {
      toast(`${escapeHtml(label)}: type a number, or leave it empty`, "error");
      return;
    }
    changes[kind] = v;
  }
  try {
    await api("PUT", "/protection/limits", changes);
    toast("Limits saved.", "win");
  } catch (err) {
    toast(escapeHtml(err.message), "error");
  }
  await refreshProtection();
}

async function exclude(path, period) {
  const what = path === "break" ? "a break" : "self-exclusion";
  if (!confirm(`Start ${what} now? Nobody can end it early.`)) return;
  try {
    const ex = await api("POST", `/protection/${path}`, { period });
    $("protect-dialog").close();
    toast(`${path === "break" ? "Your break" : "Your self-exclusion"} lasts until ${escapeHtml(dateTime(ex.ends_at))}.`, "info", 8000);
    location.hash = "#/";
  } catch (err) {
    toast(escapeHtml(err.message), "error");
  }
  await refreshProtection();
}

/** A ``reality_check`` message: the time played and the session's result, and a way to stop. */
export function showRealityCheck(msg) {
  const net = msg.net === 0 ? "even" : msg.net > 0 ? `up ${money(msg.net)}` : `down ${money(-msg.net)}`;
  $("reality-text").textContent =
    `You have played for ${minutesText(msg.played_seconds)} this session: ${msg.games} round(s), ` +
    `${money(msg.wagered)} wagered, ${money(msg.won)} won — you are ${net}.`;
  const d = $("reality-dialog");
  if (!d.open) d.showModal();
}

async function stopPlaying() {
  $("reality-dialog").close();
  try {
    await api("POST", "/protection/stop");
  } catch (err) {
    toast(escapeHtml(err.message), "error");
  }
  location.hash = "#/";
  toast("Session ended. Come back whenever you like.", "info", 8000);
}
