// The table's live feed (docs/API.md, "WebSocket"): auth → resume after the last version seen →
// events. A dropped connection reconnects with backoff and resumes, so nothing is missed.
// Phones lose networks and suspend pages, so besides the socket's own close it watches:
//   - the device going offline: the socket is dropped at once (it would hang, not close);
//     coming back online reconnects at once, without waiting out a backoff;
//   - the page coming back from the background (or Telegram's "activated"): a socket that
//     closed reconnects at once, and an open one must answer a ping within a second or is
//     replaced, so the table is current again in under a second;
//   - pings: one unanswered for 8 s (a network that died silently) drops the socket.
// The quick chat rides along: each resume asks for the messages after the last seq seen
// (`chat_after`), so a reconnect neither repeats nor skips one, and a seq already seen is
// dropped all the same. The app being minimised is told as `{"type": "away"}` (and again
// after a reconnect); the server's away frames about the players go to `onAway`.
import { connection } from "./net.js";

const CLOSE_UNAUTHORIZED = 4401;
const CLOSE_NOT_FOUND = 4404;
// Tests shorten the times through window.svaraSocketTiming.
const TIMING = { pingEveryMs: 20000, pongWithinMs: 8000, resumeCheckMs: 1000,
  ...(window.svaraSocketTiming || {}) };

export class TableSocket {
  constructor({ tableId, initData, after, onEvent, onLive, onFatal, onChat, onAway, invite = null }) {
    this.tableId = tableId;
    this.invite = invite; // a private table's, from its link
    this.initData = initData;
    this.after = after;
    this.onEvent = onEvent;
    this.onLive = onLive || (() => {});
    this.onFatal = onFatal || (() => {});
    this.onChat = onChat || (() => {});
    this.onAway = onAway || (() => {});
    this.chatAfter = 0; // the newest chat seq seen (0: the messages the table keeps, then live)
    this.away = false; // the app is minimised
    this.ws = null;
    this.open = false;
    this.stopped = false;
    this.retry = 0;
    this.timer = 0;
    this.onVisible = () => { if (!document.hidden) this.wake(); };
    this.onOnline = () => this.wake();
    this.onOffline = () => this.drop();
  }

  start() {
    this.stopped = false;
    document.addEventListener("visibilitychange", this.onVisible);
    window.addEventListener("online", this.onOnline);
    window.addEventListener("offline", this.onOffline);
    if (navigator.onLine) this.connect();
    else connection.socketState("connecting");
    return this;
  }

  stop() {
    this.stopped = true;
    this.stopPings();
    document.removeEventListener("visibilitychange", this.onVisible);
    window.removeEventListener("online", this.onOnline);
    window.removeEventListener("offline", this.onOffline);
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000, "left the table");
    this.ws = null;
    connection.socketState(null);
  }

  /** Back in front, or back online: be current now, not after a backoff. */
  wake() {
    if (this.stopped || !navigator.onLine) return;
    if (!this.ws) {
      clearTimeout(this.timer);
      this.retry = 0;
      this.connect();
    } else if (this.open) {
      this.probe(TIMING.resumeCheckMs); // a socket that slept may be dead without knowing
    }
  }

  /** The device went offline: give the socket up now (it would hang, not close). */
  drop() {
    const ws = this.ws;
    this.ws = null;
    this.open = false;
    this.stopPings();
    clearTimeout(this.timer);
    connection.socketState("connecting");
    if (ws) {
      ws.onclose = null;
      ws.onmessage = null;
      ws.close(4000, "offline");
    }
  }

  probe(within) {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify({ type: "ping" }));
    if (!this.pongTimer) this.pongTimer = setTimeout(() => this.dead(ws), within);
  }

  dead(ws) {
    if (this.ws !== ws) return;
    this.drop();
    this.wake();
  }

  startPings() {
    this.stopPings();
    this.pinger = setInterval(() => this.probe(TIMING.pongWithinMs), TIMING.pingEveryMs);
  }

  stopPings() {
    clearInterval(this.pinger);
    clearTimeout(this.pongTimer);
    this.pongTimer = 0;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${location.host}/api/tables/${encodeURIComponent(this.tableId)}/ws`;
    const ws = new WebSocket(url);
    this.ws = ws;
    this.open = false;
    connection.socketState("connecting");
    ws.onopen = () => ws.send(JSON.stringify(this.invite
      ? { type: "auth", init_data: this.initData(), invite: this.invite }
      : { type: "auth", init_data: this.initData() }));
    ws.onmessage = (msg) => this.receive(ws, msg.data);
    ws.onclose = (event) => {
      if (this.ws !== ws || this.stopped) return;
      this.stopPings();
      this.ws = null;
      this.open = false;
      connection.socketState("connecting");
      if (event.code === CLOSE_UNAUTHORIZED) {
        // The app checks the login over HTTP too: inside Telegram a refusal there is final.
        window.dispatchEvent(new Event("svara:unauthorized"));
        this.onFatal("login");
        return;
      }
      if (event.code === CLOSE_NOT_FOUND) {
        this.onFatal("not_found");
        return;
      }
      if (document.hidden || !navigator.onLine) return; // wake() reconnects
      const delay = Math.min(8000, 400 * 2 ** this.retry++);
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  receive(ws, raw) {
    if (this.ws !== ws) return;
    let frame;
    try { frame = JSON.parse(raw); } catch { return; }
    if (frame.type === "pong") {
      clearTimeout(this.pongTimer);
      this.pongTimer = 0;
    } else if (frame.type === "ready") {
      this.retry = 0;
      this.open = true;
      this.startPings();
      // views: each event frame also brings our view at its version (no GET per event).
      ws.send(JSON.stringify({ type: "resume", after: this.after, views: true,
        chat_after: this.chatAfter }));
      if (this.away) ws.send(JSON.stringify({ type: "away", away: true }));
      connection.socketState("open");
      this.onLive();
    } else if (frame.type === "event") {
      if (frame.version <= this.after) return; // already seen (a resume overlap): skip
      this.after = frame.version;
      this.onEvent(frame.event || { version: frame.version }, frame.view || null);
    } else if (frame.type === "chat" && frame.message) {
      if (!(frame.message.seq > this.chatAfter)) return; // seen already: skip
      this.chatAfter = frame.message.seq;
      this.onChat(frame.message);
    } else if (frame.type === "away" && typeof frame.user_id === "number") {
      this.onAway(frame);
    }
  }

  /** The app was minimised (true) or brought back: the other players see it at the seat. */
  setAway(away) {
    if (this.away === away) return;
    this.away = away;
    if (this.open && this.ws?.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ type: "away", away }));
    }
  }
}
