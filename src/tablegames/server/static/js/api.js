// REST and WebSocket client for the table server (docs/protocol.md).

const TOKEN_KEY = "tablegames.token";

export function getToken() {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token) {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

export function requestId(prefix = "r") {
  const rnd = crypto.getRandomValues(new Uint32Array(2));
  return `${prefix}-${Date.now().toString(36)}-${rnd[0].toString(36)}${rnd[1].toString(36)}`;
}

/** Call a REST endpoint; JSON in and out; throws ApiError with the server's {code, message}. */
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  const text = await res.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { raw: text };
    }
  }
  if (!res.ok) {
    const err = (data && (data.error || data.detail)) || {};
    const code = typeof err === "object" ? err.code : String(err);
    const message = typeof err === "object" ? err.message || JSON.stringify(err) : String(err);
    throw new ApiError(res.status, code, message);
  }
  return data;
}

/**
 * One table's WebSocket with automatic reconnect. ``onMessage(msg)`` gets every server message;
 * ``onStatus("open" | "closed" | "reconnecting")`` the connection state.
 */
export class TableSocket {
  constructor(tableId, { onMessage, onStatus }) {
    this.tableId = tableId;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.closed = false;
    this.retry = 0;
    this.queue = [];
    this.owner = null; // the owner's URL of a redirect (several server processes): the next connect goes there
    this.hops = 0; // redirects followed since the last welcome
    this.connect();
  }

  url() {
    const token = getToken();
    // no token: a spectator's socket (``?watch=1``: public cards only, issue 24)
    const path = `/ws/tables/${this.tableId}` + (token ? `?token=${encodeURIComponent(token)}` : "?watch=1");
    if (this.owner) return this.owner.replace(/^http/, "ws").replace(/\/$/, "") + path;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}${path}`;
  }

  connect() {
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.retry = 0;
      this.onStatus("open");
      for (const m of this.queue.splice(0)) ws.send(JSON.stringify(m));
    });
    ws.addEventListener("message", (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === "welcome") this.hops = 0;
      if (msg.type === "redirect") {
        this.owner = msg.url; // another process serves this table: reconnect there (close 4307 follows)
        return;
      }
      this.onMessage(msg);
    });
    ws.addEventListener("close", (ev) => {
      if (this.closed) return;
      if (ev.code === 4307 && this.owner && this.hops++ < 5) {
        setTimeout(() => !this.closed && this.connect(), 0);
        return;
      }
      this.owner = null; // any other close: back through this page's server, which sends us on
      // 4409: replaced by a newer socket of this player (reconnecting would close that one); 4503: table full
      // 4403: a break or self-exclusion (issue 26); 4440: the player's session ended
      if ([4401, 4403, 4404, 4409, 4440, 4503].includes(ev.code)) {
        this.onStatus("closed", ev.code);
        return;
      }
      this.onStatus("reconnecting");
      const wait = Math.min(5000, 300 * 2 ** this.retry++);
      setTimeout(() => !this.closed && this.connect(), wait);
    });
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
    else this.queue.push(msg);
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}
