// @ts-check
// net.js — the HTTP API and the WebSocket (PROTOCOL.md), with reconnection and resync.
//
// One socket per page. A MatchFeed holds what the server confirmed of one match: the last
// `state`, then every `update` applied in version order. When the socket drops, the client
// reconnects by itself (backoff up to 5 s) and resubscribes with `since` = the last version
// it holds, so it gets exactly the events it missed. A gap in versions, or a `stale`
// refusal, resubscribes the same way. Nothing here guesses a state: the feed only changes
// on a message from the server.
//
// A connection can also die silently (a phone's network switched, a NAT forgot it): no
// close ever comes. So the socket pings the server (`ping`, answered by `pong`) every
// `pingEvery` ms, and when nothing at all arrives within `pingTimeout` ms of a ping it
// drops that connection and reconnects as after a close.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

/** How often `api` asks again after a 503 refusal that says when to (`Retry-After`), and
 *  the longest wait it accepts, in seconds: a server shedding load refuses with `busy` and
 *  changes nothing (PROTOCOL.md), so the same request may simply be sent again. */
export const BUSY_RETRIES = 2;
export const BUSY_MAX_WAIT_S = 10;

/** The wait, in ms, a refusal asks for: its `Retry-After` in seconds, or null (none, a date,
 *  or longer than BUSY_MAX_WAIT_S). */
export function retryAfterMs(response) {
  if (response.status !== 503) return null;
  const header = (response.headers.get("retry-after") || "").trim();
  if (!/^\d+$/.test(header)) return null;
  const seconds = Number(header);
  return seconds <= BUSY_MAX_WAIT_S ? seconds * 1000 : null;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function api(method, path, body, { retries = BUSY_RETRIES, wait = sleep } = {}) {
  /** @type {RequestInit & {headers: Record<string, string>}} */
  const init = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response = await fetch(path, init);
  for (let left = retries; left > 0; left--) {
    const ms = retryAfterMs(response);
    if (ms === null) break;
    await wait(ms);
    response = await fetch(path, init);
  }
  const type = response.headers.get("content-type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    const detail = data && typeof data === "object" ? data.detail : null;
    if (detail && typeof detail === "object") throw new ApiError(response.status, detail.code, detail.message);
    const message = Array.isArray(detail) ? detail.map((d) => d.msg).join("; ") : String(detail || response.statusText);
    throw new ApiError(response.status, "http_" + response.status, message);
  }
  return data;
}

export class MatchFeed extends EventTarget {
  /** @param {Socket} socket
   *  @param {string} matchId */
  constructor(socket, matchId) {
    super();
    this.socket = socket;
    this.id = matchId;
    /** @type {string | null} */
    this.key = null; // the invite key of a private match, when seen through its link
    /** @type {number | null} */
    this.v = null; // the version held; null until the first state
    /** @type {import("./wire.js").InfoView | null} */
    this.info = null;
    /** @type {import("./wire.js").GameView | null} */
    this.game = null;
    /** @type {import("./wire.js").ClockView | null} */
    this.clock = null;
    this.clockAt = 0; // performance.now() when the clock reading arrived
    /** @type {number | null} */
    this.you = null;
    /** @type {import("./wire.js").ChatLine[]} */
    this.chat = [];
    /** @type {import("./wire.js").EventView[]} */
    this.events = [];
    /** @type {import("./wire.js").EventView[]} */
    this.history = [];
    this.backfilling = false;
  }

  subscribeMessage() {
    const message = { type: "subscribe", match: this.id, since: this.v };
    if (this.key) message.key = this.key; // a private match seen through its invite link
    return message;
  }

  resync() {
    this.socket.send(this.subscribeMessage());
  }

  /** Ask for every event from the start (the answer fills `history`). */
  backfill() {
    this.backfilling = true;
    this.socket.send({ ...this.subscribeMessage(), since: 0 });
  }

  /** @param {import("./wire.js").ServerMessage} message */
  onMessage(message) {
    switch (message.type) {
      case "state": {
        this.v = message.v;
        this.info = message.info;
        this.game = message.game;
        this.you = message.you;
        this.setClock(message.clock);
        this.chat = message.chat || [];
        this.emit("state", { full: true, events: [] });
        break;
      }
      case "update": {
        if (this.v === null) { this.resync(); return; }
        const events = message.events || [];
        if (this.backfilling && events.length && events[0].v === 1) {
          // the answer to backfill(): the match so far, for the log only
          this.backfilling = false;
          const held = this.v;
          this.history = events.filter((e) => e.v <= held);
          this.events = this.history.slice();
          this.emit("history", {});
        }
        const fresh = [];
        for (const event of message.events || []) {
          if (event.v <= this.v) continue; // already seen
          if (event.v !== this.v + 1) { this.resync(); return; } // a gap: ask again
          fresh.push(event);
          this.v = event.v;
        }
        if (message.v > this.v && !(message.events || []).length) { this.resync(); return; }
        this.v = Math.max(this.v, message.v);
        this.game = message.game;
        if (message.info) this.info = message.info; // the match ended: result, seed, ratings
        this.setClock(message.clock);
        this.events.push(...fresh);
        this.emit("state", { full: false, events: fresh });
        break;
      }
      case "chat":
        this.chat.push(message);
        this.emit("chat", message);
        break;
      case "rematch":
        this.emit("rematch", message);
        break;
      case "cancelled":
        this.emit("cancelled", message);
        break;
      case "error":
        if (message.code === "stale") this.resync();
        this.emit("error", message);
        break;
      default:
        break;
    }
  }

  /** @param {import("./wire.js").ClockView | null} clock */
  setClock(clock) {
    this.clock = clock;
    this.clockAt = performance.now();
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /** Propose an action; the server's answer comes as an update or an error. */
  act(type, fields = {}) {
    return this.socket.send({ type, match: this.id, v: this.v, ...fields });
  }
}

export class Socket extends EventTarget {
  constructor(url = null) {
    super();
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.url = url || `${scheme}//${location.host}/ws`;
    this.ws = null;
    this.feeds = new Map();
    this.status = "closed";
    this.attempt = 0;
    this.nextId = 1;
    this.closedByUs = false;
    this.user = null;
    this.lobby = false; // following the lobby's open games (renewed on every welcome)
    this.serverOffset = 0; // the server's clock less this one's, in seconds (from the welcome)
    this.pingEvery = 10_000; // ms between the client's pings while connected
    this.pingTimeout = 6_000; // ms a ping waits for any message before the connection is dead
    this.awaiting = null; // the ping waiting for an answer: {ws, sent}
    if (typeof document !== "undefined") {
      // back from sleep or a network change: a likely dead connection, so check it now
      document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") this.probe(); });
      window.addEventListener("online", () => this.probe());
    }
  }

  setStatus(status) {
    this.status = status;
    this.dispatchEvent(new CustomEvent("status", { detail: status }));
  }

  connect() {
    this.closedByUs = false;
    if (this.ws && this.ws.readyState <= 1) return;
    this.setStatus("connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.schedulePing();
    };
    ws.onmessage = (e) => {
      if (this.ws !== ws) return; // a connection given up as dead
      if (this.awaiting?.ws === ws) { // anything heard answers the ping: the line is alive
        this.awaiting = null;
        clearTimeout(this.deadTimer);
        this.schedulePing();
      }
      let message;
      try { message = JSON.parse(e.data); } catch { return; }
      this.onMessage(message);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.lost();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  /** The connection is gone (closed, or given up as dead): reconnect unless we closed it. */
  lost() {
    this.ws = null;
    this.awaiting = null;
    clearTimeout(this.pingTimer);
    clearTimeout(this.deadTimer);
    this.setStatus("closed");
    if (!this.closedByUs) this.reconnectLater();
  }

  schedulePing() {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => this.probe(), this.pingEvery);
  }

  /** Ping the server now; with no message back within `pingTimeout` the connection is
   *  taken for dead: dropped (its late messages ignored) and made again. */
  probe() {
    const ws = this.ws;
    if (!ws || ws.readyState !== 1 || this.awaiting) return;
    clearTimeout(this.pingTimer);
    this.awaiting = { ws, sent: performance.now() };
    ws.send(JSON.stringify({ type: "ping", id: this.nextId++ }));
    clearTimeout(this.deadTimer);
    this.deadTimer = setTimeout(() => {
      if (this.ws !== ws || this.awaiting?.ws !== ws) return;
      this.deadConnections = (this.deadConnections || 0) + 1;
      try { ws.close(4000, "no answer to ping"); } catch { /* already closing */ }
      this.lost();
    }, this.pingTimeout);
  }

  reconnectLater() {
    const hold = Math.max(0, (this.holdUntil || 0) - performance.now());
    const delay = Math.max(hold, Math.min(5000, 300 * 2 ** this.attempt));
    this.attempt += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      if (this.attempt > 2) {
        try { await api("GET", "/api/me"); } catch { /* the server is away: try again */ }
      }
      this.connect();
    }, delay);
  }

  /** @param {import("./wire.js").ServerMessage} message */
  onMessage(message) {
    switch (message.type) {
      case "welcome":
        this.user = message.user;
        this.serverOffset = message.server_time - Date.now() / 1000; // server − client clock, s
        this.setStatus("open");
        // (re)subscribe every feed from the version it holds, then send what waited
        for (const feed of this.feeds.values()) this.raw(feed.subscribeMessage());
        if (this.lobby) this.raw({ type: "subscribe_lobby" });
        return;
      case "ping":
        this.raw({ type: "pong", n: message.n });
        return;
      case "error":
        if (message.code === "unauthenticated") {
          api("GET", "/api/me").catch(() => {});
        }
        break;
      default:
        break;
    }
    if (message.type === "lobby") this.dispatchEvent(new CustomEvent("lobby", { detail: message.games }));
    if (message.type === "challenges") this.dispatchEvent(new CustomEvent("challenges", { detail: message }));
    if (message.type === "pools") this.dispatchEvent(new CustomEvent("pools", { detail: message.pools }));
    if (message.type === "seeking") this.dispatchEvent(new CustomEvent("seeking", { detail: message.seek }));
    if (message.type === "paired") this.dispatchEvent(new CustomEvent("paired", { detail: message.match }));
    const feed = "match" in message && message.match ? this.feeds.get(message.match) : null;
    if (feed) feed.onMessage(message);
    this.dispatchEvent(new CustomEvent("message", { detail: message }));
  }

  raw(message) {
    if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify(message));
  }

  /** Send now; returns the message id, or null when the socket is not open (an action is
   *  never queued for later: it would be proposed against a state the player no longer sees;
   *  subscriptions are renewed on every welcome anyway). */
  send(message) {
    if (this.status !== "open") return null;
    const id = message.id ?? this.nextId++;
    this.raw({ ...message, id });
    return id;
  }

  /** The feed of a match; `since` = 0 asks for every event from the start (a replay). */
  feed(matchId, since = null, key = null) {
    let feed = this.feeds.get(matchId);
    if (!feed) {
      feed = new MatchFeed(this, matchId);
      feed.v = since;
      feed.key = key;
      this.feeds.set(matchId, feed);
      if (this.status === "open") this.raw(feed.subscribeMessage());
    }
    return feed;
  }

  /** Follow the lobby (`on`): the server sends a `lobby` message, the open games, a
   *  `challenges` message, the games reserved by and for this player, `pools`, how many
   *  wait in Play now's pools, and `seeking`, this player's place there, now and whenever
   *  they change; the socket emits them as "lobby", "challenges", "pools" and "seeking"
   *  events (and "paired" when Play now pairs this player). */
  followLobby(on) {
    this.lobby = on;
    this.raw({ type: on ? "subscribe_lobby" : "unsubscribe_lobby" });
  }

  drop(matchId) {
    if (this.feeds.delete(matchId)) this.raw({ type: "unsubscribe", match: matchId });
  }

  close() {
    this.closedByUs = true;
    clearTimeout(this.timer);
    clearTimeout(this.pingTimer);
    clearTimeout(this.deadTimer);
    this.awaiting = null;
    this.ws?.close();
  }

  /** Cut the connection as a network failure would, and stay away `holdMs` before the
   *  usual reconnection (the browser tests use it). */
  cut(holdMs = 0) {
    this.holdUntil = performance.now() + holdMs;
    this.ws?.close();
  }
}
