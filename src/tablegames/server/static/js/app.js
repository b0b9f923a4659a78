// The page's entry: the games (GET /games), the router (lobby or a table room) and the page's controls.
// Talks to the server only through docs/protocol.md; never decides a game outcome itself. The parts:
// state.js (state and lookups), lobby.js, room.js (socket, live log, scene), console.js (bets, decisions,
// keys), narrate.js (one narrator for live play and recall), recall.js, table.js and felt/ (the drawing).

import { getToken, setToken } from "./api.js";
import { installSprite } from "./cards.js";
import { onKey } from "./console.js";
import { enterLobby, refreshLobby, register, signIn, walletOp } from "./lobby.js";
import { installProtection } from "./protection.js";
import { downloadHistory, openRuleCard } from "./recall.js";
import { enterRoom, leaveRoom, setSeed } from "./room.js";
import { $, S, countdownText, loadGames, showError } from "./state.js";

function route() {
  const m = /^#\/table\/(\d+)/.exec(location.hash);
  const watch = /^#\/watch\/(\d+)/.exec(location.hash); // a spectator: no account needed (issue 24)
  if (m && getToken()) enterRoom(Number(m[1]));
  else if (watch) enterRoom(Number(watch[1]), true);
  else {
    leaveRoom();
    enterLobby();
  }
}

async function boot() {
  installSprite();
  installProtection();
  $("register-form").addEventListener("submit", register);
  $("signin-btn").addEventListener("click", signIn);
  $("wallet-form").addEventListener("submit", (e) => {
    e.preventDefault();
    walletOp("buy-in");
  });
  $("cashout-btn").addEventListener("click", () => walletOp("cash-out"));
  $("seed-form").addEventListener("submit", setSeed);
  for (const format of ["csv", "jsonl"])
    $(`export-${format}`).addEventListener("click", () => downloadHistory(format).catch((e) => showError(e.message)));
  $("btn-lobby").addEventListener("click", () => (location.hash = "#/"));
  $("btn-paytable").addEventListener("click", () => S.tableId && openRuleCard(S.tableId));
  $("btn-wallet").addEventListener("click", () => (location.hash = "#/"));
  $("btn-logout").addEventListener("click", () => {
    setToken(null);
    S.me = null;
    location.hash = "#/";
    leaveRoom();
    enterLobby();
  });
  $("recall").addEventListener("click", (e) => {
    if (e.target.id === "recall") $("recall").hidden = true;
  });
  window.addEventListener("hashchange", route);
  document.addEventListener("keydown", onKey);
  let tick = 0;
  setInterval(() => {
    const c = document.getElementById("countdown");
    if (c) c.textContent = countdownText();
    for (const t of document.querySelectorAll("[data-countdown]")) t.textContent = countdownText();
    if (++tick % 5 === 0 && !$("lobby").hidden && S.me) refreshLobby();
  }, 1000);
  try {
    await loadGames();
  } catch (err) {
    showError(err);
  }
  route();
}

window.tablegames = S; // read-only handle for debugging and tests
boot();
