// The Math lab's form: one field per parameter of the game (GET /games `parameters`), grouped by `group`;
// a group of payouts ("X to 1" entries) is drawn as a pay table, highest hand first. The form only collects
// text: every value is checked by the server, whose complete rule set is written back into the fields.

import { escapeHtml, titleCase } from "./format.js";

/** A game's parameters; a game whose rules have none yet offers its rule options as choices. */
export function parametersOf(game) {
  if (game.parameters && game.parameters.length) return game.parameters;
  return (game.rule_options || []).map((o) => ({
    name: o.name,
    kind: "choice",
    help: o.help,
    default: o.choices[0],
    choices: o.choices,
    allowed: o.choices.join(" | "),
    group: "rules",
    rank: 0,
    structural: true,
    listed: true,
    ruling: "",
    writes: [],
  }));
}

/** The groups of parameters in the order they first appear. */
function groups(params) {
  const out = new Map();
  for (const p of params) {
    if (!out.has(p.group)) out.set(p.group, []);
    out.get(p.group).push(p);
  }
  return out;
}

const isPayTable = (list) => list.some((p) => p.kind === "odds") && list.every((p) => p.kind === "odds" || p.kind === "text");

/** The words for an entry of a pay table: its name after the table's prefix ("main.full-house": "Full house"). */
function entryLabel(p) {
  const dot = p.name.indexOf(".");
  const rest = dot >= 0 ? p.name.slice(dot + 1) : p.name;
  return titleCase(rest.replace(/-/g, " "));
}

function control(p) {
  let el;
  if (p.kind === "choice" || p.kind === "preset") {
    el = document.createElement("select");
    if (p.kind === "preset") el.appendChild(new Option("—", ""));
    for (const c of p.choices) el.appendChild(new Option(c, c));
    el.value = p.kind === "preset" ? "" : p.default;
  } else {
    el = document.createElement("input");
    el.value = p.default;
    el.placeholder = p.allowed;
    el.size = p.kind === "odds" ? 7 : p.kind === "text" || p.kind === "cards" ? 18 : 10;
    el.spellcheck = false;
  }
  el.className = "lab-input";
  el.name = p.name;
  el.dataset.param = p.name;
  el.dataset.kind = p.kind;
  el.title = `${p.help}${p.help ? "; " : ""}allowed: ${p.allowed}`;
  el.setAttribute("aria-label", p.help || p.name);
  return el;
}

function errorSlot(p) {
  const e = document.createElement("div");
  e.className = "field-error";
  e.dataset.errorFor = p.name;
  e.setAttribute("role", "alert");
  return e;
}

function ruleRow(p) {
  const row = document.createElement("div");
  row.className = "lab-field";
  row.dataset.field = p.name;
  const label = document.createElement("label");
  label.innerHTML = `<span class="lab-name">${escapeHtml(p.name)}</span>`;
  const input = control(p);
  label.appendChild(input);
  row.appendChild(label);
  const about = document.createElement("div");
  about.className = "lab-about muted";
  const dflt = p.listed ? ` · default ${escapeHtml(p.default)}` : "";
  about.innerHTML = `${escapeHtml(p.help)}${dflt}${p.ruling ? ` · <span class="ruling">${escapeHtml(p.ruling)}</span>` : ""}`;
  row.appendChild(about);
  row.appendChild(errorSlot(p));
  return row;
}

function payTable(list) {
  const box = document.createElement("div");
  box.className = "lab-paytable";
  const title = list.find((p) => p.kind === "text");
  if (title) {
    const row = ruleRow(title);
    row.classList.add("lab-table-name");
    box.appendChild(row);
  }
  const table = document.createElement("table");
  table.className = "lab-pays";
  table.innerHTML = `<thead><tr><th>hand</th><th>pays X to 1</th><th>default</th></tr></thead>`;
  const body = document.createElement("tbody");
  const entries = list.filter((p) => p.kind === "odds").sort((a, b) => b.rank - a.rank);
  for (const p of entries) {
    const tr = document.createElement("tr");
    tr.dataset.field = p.name;
    const hand = document.createElement("td");
    hand.textContent = entryLabel(p);
    hand.title = p.name;
    const cell = document.createElement("td");
    cell.appendChild(control(p));
    cell.appendChild(errorSlot(p));
    const dflt = document.createElement("td");
    dflt.className = "muted";
    dflt.textContent = p.default;
    tr.append(hand, cell, dflt);
    body.appendChild(tr);
  }
  table.appendChild(body);
  box.appendChild(table);
  return box;
}

/** Draw the form of ``game`` into ``form``; ``onEdit(name, value)`` is called on every change. */
export function buildForm(form, game, onEdit) {
  form.replaceChildren();
  for (const [group, list] of groups(parametersOf(game))) {
    const set = document.createElement("details");
    set.open = true;
    set.className = "lab-group";
    set.dataset.group = group;
    const sum = document.createElement("summary");
    sum.textContent = titleCase(group);
    set.appendChild(sum);
    const presets = list.filter((p) => p.kind === "preset");
    const rest = list.filter((p) => p.kind !== "preset");
    for (const p of presets) set.appendChild(ruleRow(p));
    if (isPayTable(rest)) set.appendChild(payTable(rest));
    else for (const p of rest) set.appendChild(ruleRow(p));
    form.appendChild(set);
  }
  const edited = (ev) => {
    const el = ev.target;
    if (el && el.dataset && el.dataset.param) onEdit(el.dataset.param, el.value);
  };
  form.oninput = edited;
  form.onchange = edited;
}

/** Write the server's complete rule set into the fields (not into the one being typed in); mark the values
 * that differ from RULES.md's. */
export function showRuleSet(form, rules, changed) {
  for (const el of form.querySelectorAll("[data-param]")) {
    const name = el.dataset.param;
    const row = el.closest("[data-field]");
    if (row) row.classList.toggle("changed", Object.prototype.hasOwnProperty.call(changed || {}, name));
    if (el.dataset.kind === "preset" || !(name in rules)) continue;
    if (el !== document.activeElement && el.value !== rules[name]) el.value = rules[name];
  }
}

export function clearErrors(form) {
  for (const e of form.querySelectorAll(".field-error")) e.textContent = "";
  for (const el of form.querySelectorAll(".invalid")) el.classList.remove("invalid");
}

/** Show the server's refusal next to its field; false when the form has no such field. */
export function showFieldError(form, field, message) {
  const slot = [...form.querySelectorAll(".field-error")].find((e) => e.dataset.errorFor === field);
  if (!slot) return false;
  slot.textContent = message;
  const input = [...form.querySelectorAll("[data-param]")].find((e) => e.dataset.param === field);
  if (input) input.classList.add("invalid");
  const group = slot.closest("details");
  if (group) group.open = true;
  return true;
}
