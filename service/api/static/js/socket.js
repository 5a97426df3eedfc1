// The table's live feed (API.md, WebSocket): auth → resume after the last version seen →
// events. A dropped connection reconnects with backoff and resumes, so nothing is missed;
// coming back to the page (phones suspend background tabs) reconnects at once.

const CLOSE_UNAUTHORIZED = 4401;
const CLOSE_NOT_FOUND = 4404;
// A phone can lose the network without the socket noticing: an unanswered ping means the
// connection is dead, so reconnect. (Tests shorten the times through window.svaraSocketTiming.)
const TIMING = { pingEveryMs: 20000, pongWithinMs: 8000, ...(window.svaraSocketTiming || {}) };

export class TableSocket {
  constructor({ tableId, initData, after, onEvent, onStatus, onFatal }) {
    this.tableId = tableId;
    this.initData = initData;
    this.after = after;
    this.onEvent = onEvent;
    this.onStatus = onStatus || (() => {});
    this.onFatal = onFatal || (() => {});
    this.ws = null;
    this.stopped = false;
    this.retry = 0;
    this.timer = 0;
    this.onVisible = () => {
      if (document.hidden || this.stopped || this.ws) return;
      clearTimeout(this.timer);
      this.retry = 0;
      this.connect();
    };
  }

  start() {
    this.stopped = false;
    document.addEventListener("visibilitychange", this.onVisible);
    this.connect();
    return this;
  }

  startPings(ws) {
    this.stopPings();
    this.pinger = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN) return;
      ws.send(JSON.stringify({ type: "ping" }));
      // The oldest unanswered ping decides: later pings must not postpone its deadline.
      if (!this.pongTimer) {
        this.pongTimer = setTimeout(() => ws.close(4000, "no pong"), TIMING.pongWithinMs);
      }
    }, TIMING.pingEveryMs);
  }

  stopPings() {
    clearInterval(this.pinger);
    clearTimeout(this.pongTimer);
    this.pongTimer = 0;
  }

  stop() {
    this.stopped = true;
    this.stopPings();
    document.removeEventListener("visibilitychange", this.onVisible);
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000, "left the table");
    this.ws = null;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${location.host}/api/tables/${encodeURIComponent(this.tableId)}/ws`;
    const ws = new WebSocket(url);
    this.ws = ws;
    this.onStatus("connecting");
    ws.onopen = () => ws.send(JSON.stringify({ type: "auth", init_data: this.initData() }));
    ws.onmessage = (msg) => this.receive(ws, msg.data);
    ws.onclose = (event) => {
      this.stopPings();
      if (this.ws !== ws || this.stopped) return;
      this.ws = null;
      if (event.code === CLOSE_UNAUTHORIZED) {
        this.onFatal("Your login was refused by the live feed. Reopen the game.");
        return;
      }
      if (event.code === CLOSE_NOT_FOUND) {
        this.onFatal(event.reason || "This table does not exist.", { retry: false });
        return;
      }
      this.onStatus("offline");
      if (document.hidden) return; // reconnect when the page is visible again
      const delay = Math.min(8000, 500 * 2 ** this.retry++);
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  receive(ws, raw) {
    let frame;
    try { frame = JSON.parse(raw); } catch { return; }
    if (frame.type === "pong") {
      clearTimeout(this.pongTimer);
      this.pongTimer = 0;
    } else if (frame.type === "ready") {
      this.retry = 0;
      this.startPings(ws);
      this.onStatus("live");
      // views: each event frame also brings our view at its version (no GET per event).
      ws.send(JSON.stringify({ type: "resume", after: this.after, views: true }));
    } else if (frame.type === "event") {
      if (frame.version <= this.after) return; // already seen (a resume overlap): skip
      this.after = frame.version;
      this.onEvent(frame.event || { version: frame.version }, frame.view || null);
    }
  }
}
