// The Math lab page (/lab): pick a game, edit its rules and pay tables (labform.js, built from GET /games'
// parameters), and the server's exact figures follow as you type (POST /lab/analyze, debounced; a stale answer
// is dropped); save the rule set as a game file (POST /lab/game-file) and open a table with it (POST /tables).
// The page knows no game and no rule: it sends the values typed and draws what the server answers.

import { escapeHtml, parseDollars } from "./format.js";
import { buildForm, clearErrors, parametersOf, showFieldError, showRuleSet } from "./labform.js";
import { renderAnalysis } from "./labview.js";

const $ = (id) => document.getElementById(id);
const DEBOUNCE_MS = 250;
const BUSY_RETRY_MS = 600;

export const L = {
  games: [], // GET /games
  game: null, // the game picked
  edits: {}, // parameter name -> the text typed (what is sent; the rest keeps RULES.md's values)
  seq: 0, // the latest analysis asked for; an older answer is dropped
  done: 0, // the latest analysis drawn
  timer: null,
  abort: null,
  last: null, // the latest answer drawn
};

class LabError extends Error {
  constructor(status, error) {
    super((error && error.message) || `HTTP ${status}`);
    this.status = status;
    this.code = error && error.code;
    this.field = error && error.field;
  }
}

/** POST a JSON body; the answer's JSON, or a LabError with the server's field. */
async function post(path, payload, { signal, headers = {} } = {}) {
  const res = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", ...headers },
    body: JSON.stringify(payload),
    signal,
  });
  const raw = await res.text();
  if (!res.ok) {
    let error = null;
    try {
      error = JSON.parse(raw).error;
    } catch {
      error = { message: raw };
    }
    throw new LabError(res.status, error);
  }
  return JSON.parse(raw);
}

const ruleSetName = () => $("lab-name").value.trim() || null;
const request = () => ({ game: L.game.key, rules: { ...L.edits }, name: ruleSetName() });

function status(text, kind = "") {
  const s = $("lab-status");
  s.textContent = text;
  s.className = `lab-status ${kind}`;
}

function schedule(delay = DEBOUNCE_MS) {
  clearTimeout(L.timer);
  status("solving…", "busy");
  L.timer = setTimeout(analyze, delay);
}

export async function analyze() {
  const seq = ++L.seq;
  if (L.abort) L.abort.abort();
  const abort = new AbortController();
  L.abort = abort;
  try {
    const res = await post("/lab/analyze", request(), { signal: abort.signal });
    if (seq !== L.seq) return;
    L.last = res;
    L.done = seq;
    $("lab-error").textContent = "";
    clearErrors($("lab-form"));
    showRuleSet($("lab-form"), res.rules, res.changed);
    renderAnalysis(res, boxes());
    $("lab-figures").classList.remove("stale");
    status(res.cached ? "from the cache" : `solved in ${res.seconds.toFixed(3)} s`, "ok");
    $("lab-status").dataset.seq = String(seq);
  } catch (err) {
    if (seq !== L.seq || (err && err.name === "AbortError")) return;
    if (err.code === "busy") return schedule(BUSY_RETRY_MS);
    $("lab-figures").classList.add("stale");
    clearErrors($("lab-form"));
    if (!(err.field && showFieldError($("lab-form"), err.field, err.message))) $("lab-error").textContent = err.message;
    status("not solved: see the message", "bad");
  }
}

const boxes = () => ({ figures: $("lab-figures"), side: $("lab-side"), returns: $("lab-returns"), strategy: $("lab-strategy") });

function onEdit(name, value) {
  const p = parametersOf(L.game).find((x) => x.name === name);
  if (p && p.kind === "preset") {
    for (const w of p.writes) delete L.edits[w]; // the preset sets them now
    if (value === "") delete L.edits[name];
    else L.edits[name] = value;
  } else L.edits[name] = value;
  schedule();
}

function pick(key, edits = {}) {
  L.game = L.games.find((g) => g.key === key) || L.games[0];
  $("lab-game").value = L.game.key;
  const known = new Set(parametersOf(L.game).map((p) => p.name));
  L.edits = Object.fromEntries(Object.entries(edits).filter(([k]) => known.has(k)));
  $("lab-tagline").textContent = L.game.tagline;
  buildForm($("lab-form"), L.game, onEdit);
  showRuleSet($("lab-form"), L.edits, {});
  if (location.hash !== `#${L.game.key}`) history.replaceState(null, "", `#${L.game.key}`);
  clearTimeout(L.timer);
  status("solving…", "busy");
  analyze();
}

async function openFile(ev) {
  const file = ev.target.files && ev.target.files[0];
  if (!file) return;
  try {
    const res = await post("/lab/analyze", { game_file: await file.text() });
    $("lab-name").value = res.name || "";
    pick(res.game, res.rules);
  } catch (err) {
    $("lab-error").textContent = `${file.name}: ${err.message}`;
  }
  ev.target.value = "";
}

/** The rule set as a game file: ``{game, name, file_name, text}``. */
async function gameFile() {
  return post("/lab/game-file", { ...request(), description: $("lab-description").value });
}

async function save(ev) {
  ev.preventDefault();
  try {
    const file = await gameFile();
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([file.text], { type: "application/toml" }));
    a.download = file.file_name;
    document.body.appendChild(a);
    a.click();
    setTimeout(() => {
      URL.revokeObjectURL(a.href);
      a.remove();
    }, 1000);
  } catch (err) {
    showProblem(err, $("lab-error"));
  }
}

function showProblem(err, where) {
  if (!(err.field && showFieldError($("lab-form"), err.field, err.message))) where.textContent = err.message;
}

async function openTable(ev) {
  ev.preventDefault();
  const out = $("lab-table-status");
  const [lo, hi] = [parseDollars($("lab-min").value), parseDollars($("lab-max").value)];
  if (lo === null || hi === null) {
    out.textContent = "Limits are dollar amounts, e.g. 1 and 100.";
    return;
  }
  out.textContent = "";
  try {
    const { text } = await gameFile();
    const body = { name: $("lab-table-name").value.trim(), seats: Number($("lab-seats").value), min_bet: lo, max_bet: hi, game_file: text };
    const confirmedBy = $("lab-confirm").value.trim(); // only sent when typed: the server decides whether it is needed
    if (confirmedBy) body.confirm_negative_edge = confirmedBy;
    const t = await post("/tables", body, { headers: { "X-Admin-Token": $("lab-admin").value } });
    out.dataset.tableId = String(t.table_id);
    const named = t.rule_set ? ` with the rule set “${escapeHtml(t.rule_set)}”` : "";
    out.innerHTML = `Opened table ${t.table_id}, <a href="/#/table/${t.table_id}">${escapeHtml(t.name)}</a>${named} (${Object.keys(t.rules).length} rules).`;
  } catch (err) {
    showProblem(err, out);
  }
}

async function boot() {
  const res = await fetch("/games");
  L.games = await res.json();
  const select = $("lab-game");
  for (const g of L.games) select.appendChild(new Option(g.title, g.key));
  select.addEventListener("change", () => pick(select.value));
  $("lab-pick").addEventListener("submit", (e) => e.preventDefault());
  $("lab-name").addEventListener("input", () => schedule());
  $("lab-reset").addEventListener("click", () => pick(L.game.key));
  $("lab-open").addEventListener("change", openFile);
  $("lab-save-form").addEventListener("submit", save);
  $("lab-table-form").addEventListener("submit", openTable);
  pick(decodeURIComponent(location.hash.slice(1)));
}

window.tablegamesLab = L; // read-only handle for debugging and tests
boot().catch((err) => {
  $("lab-error").textContent = err.message;
});
