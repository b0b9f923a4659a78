// The Math lab's figures, drawn from POST /lab/analyze's answer as it is: the main wager's house edge, element
// of risk, hit frequency and standard deviation (each exact figure in its title), the side bets, the return
// table and the strategy chart. Nothing is computed here but the formatting.

import { escapeHtml } from "./format.js";

const pct = (x) => `${(100 * x).toFixed(4)}%`;
const num = (x, d = 6) => Number(x).toFixed(d);

function figure(label, value, exact, testid) {
  const d = document.createElement("div");
  d.className = "lab-figure";
  d.dataset.testid = testid;
  if (exact) {
    d.dataset.exact = exact;
    d.title = `exactly ${exact}`;
  }
  d.innerHTML = `<div class="lab-label">${escapeHtml(label)}</div><div class="lab-value">${escapeHtml(value)}</div>`;
  return d;
}

function outcomeTable(rows) {
  const t = document.createElement("table");
  t.className = "lab-table-data";
  // the main wager's rows name their settlement outcome (win, push, lose, fold and each game's own), the engine's word
  const categories = rows.some((o) => o.category);
  const head = categories ? "<th>outcome</th><th>settles as</th>" : "<th>outcome</th>";
  t.innerHTML = `<thead><tr>${head}<th>combinations</th><th>probability</th><th>payout</th><th>contribution</th></tr></thead>`;
  const body = document.createElement("tbody");
  for (const o of rows) {
    const tr = document.createElement("tr");
    const name = `<td>${escapeHtml(o.outcome)}</td>` + (categories ? `<td>${escapeHtml(o.category || "")}</td>` : "");
    tr.innerHTML = `${name}<td class="n">${o.combinations.toLocaleString("en-US")}</td>
      <td class="n">${num(o.probability, 8)}</td><td class="n">${num(o.payout, 4)}</td>
      <td class="n" title="exactly ${escapeHtml(o.contribution_exact)}">${num(o.contribution, 8)}</td>`;
    body.appendChild(tr);
  }
  t.appendChild(body);
  return t;
}

function drawFigures(box, res) {
  box.replaceChildren(
    figure("House edge", pct(res.house_edge), res.house_edge_exact, "lab-house-edge"),
    figure("Element of risk", pct(res.element_of_risk), res.element_of_risk_exact, "lab-element-of-risk"),
    figure("Hit frequency", pct(res.hit_frequency), res.hit_frequency_exact, "lab-hit-frequency"),
    figure("Standard deviation", num(res.std_dev, 4), "", "lab-std-dev"),
    figure("Win", pct(res.p_win), "", "lab-p-win"),
    figure("Push", pct(res.p_push), "", "lab-p-push"),
    figure("Lose", pct(res.p_loss), "", "lab-p-loss"),
    figure("Average wager", `${num(res.average_wager, 4)} units`, "", "lab-average-wager"),
  );
}

function drawSideBets(box, res) {
  box.replaceChildren();
  if (!res.side_bets.length) {
    box.innerHTML = `<p class="muted">No side bet.</p>`;
    return;
  }
  const t = document.createElement("table");
  t.className = "lab-table-data";
  t.innerHTML = `<thead><tr><th>wager</th><th>house edge</th><th>return</th><th>hit frequency</th><th>std. dev.</th></tr></thead>`;
  const body = document.createElement("tbody");
  for (const s of res.side_bets) {
    const tr = document.createElement("tr");
    tr.dataset.side = s.name;
    tr.innerHTML = `<td>${escapeHtml(s.name)}</td>
      <td class="n" data-exact="${escapeHtml(s.house_edge_exact)}" title="exactly ${escapeHtml(s.house_edge_exact)}">${pct(s.house_edge)}</td>
      <td class="n">${pct(s.return)}</td><td class="n">${pct(s.hit_frequency)}</td><td class="n">${num(s.std_dev, 4)}</td>`;
    body.appendChild(tr);
  }
  t.appendChild(body);
  box.appendChild(t);
  for (const s of res.side_bets) {
    const d = document.createElement("details");
    d.innerHTML = `<summary>${escapeHtml(s.name)}: return table</summary>`;
    d.appendChild(outcomeTable(s.outcomes));
    box.appendChild(d);
  }
}

function drawStrategy(box, strategy) {
  box.replaceChildren();
  const c = strategy.chart;
  if (c) box.appendChild(chartTable(c));
  if (strategy.summary.length) {
    const pre = document.createElement("pre");
    pre.className = "lab-summary";
    pre.textContent = strategy.summary.join("\n");
    box.appendChild(pre);
  }
}

/** The strategy chart: rows by columns of the server's action codes, one colour per code. */
function chartTable(c) {
  const t = document.createElement("table");
  t.className = "lab-chart";
  t.dataset.testid = "lab-chart";
  const head = c.columns.map((col) => `<th>${escapeHtml(col)}</th>`).join("");
  t.innerHTML = `<caption>rows: ${escapeHtml(c.row_label)} · columns: ${escapeHtml(c.column_label)} · * depends on the exact cards</caption>
    <thead><tr><th></th>${head}</tr></thead>`;
  const codes = new Map();
  const body = document.createElement("tbody");
  for (const r of c.rows) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.textContent = r.label;
    tr.appendChild(th);
    for (const cell of r.cells) {
      const td = document.createElement("td");
      td.textContent = cell;
      const code = cell.replace(/\*$/, "");
      if (code && !codes.has(code)) codes.set(code, codes.size % 8);
      if (code) td.className = `code-${codes.get(code)}`;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  t.appendChild(body);
  return t;
}

/** Draw every part of an analysis. */
export function renderAnalysis(res, boxes) {
  drawFigures(boxes.figures, res);
  drawSideBets(boxes.side, res);
  boxes.returns.replaceChildren(outcomeTable(res.outcomes));
  const total = document.createElement("p");
  total.className = "muted";
  total.textContent = `${res.total_combinations.toLocaleString("en-US")} equally likely deals; expected value ${num(res.expected_value, 8)} units.`;
  boxes.returns.appendChild(total);
  drawStrategy(boxes.strategy, res.strategy);
  for (const n of res.notes) {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = n;
    boxes.returns.appendChild(p);
  }
}
