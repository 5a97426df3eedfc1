// How connected the page is, in one place: `document.body.dataset.connection` is "live",
// "reconnecting" or "offline", and the dot in the header follows it.
//   offline       the device says it has no network (navigator.onLine, online/offline events)
//   reconnecting  the network is there but the table's socket is not (yet) open, or the last
//                 HTTP request could not reach the server
//   refused       the server refused this login (forged or expired initData): nothing will
//                 connect until Telegram opens the app afresh, so the dot never says live
//   live          otherwise
// Screens subscribe to hear when the connection comes back (to resend what waited).
import { t } from "./i18n.js";

class Connection {
  constructor() {
    this.socket = null; // null: no socket on this screen; else "open" | "connecting"
    this.httpDown = false;
    this.refused = false;
    this.listeners = new Set();
    this.state = null;
    window.addEventListener("online", () => this.update());
    window.addEventListener("offline", () => this.update());
  }

  socketState(state) { this.socket = state; this.update(); }
  httpOk() { if (this.httpDown) { this.httpDown = false; this.update(); } }
  httpFailed() { if (!this.httpDown) { this.httpDown = true; this.update(); } }
  refuse() { this.refused = true; this.update(); }

  compute() {
    if (this.refused) return "refused";
    if (!navigator.onLine) return "offline";
    if (this.socket === null) return this.httpDown ? "reconnecting" : "live";
    return this.socket === "open" ? "live" : "reconnecting";
  }

  update() {
    const state = this.compute();
    if (state === this.state) return;
    const before = this.state;
    this.state = state;
    document.body.dataset.connection = state;
    this.paint();
    for (const listener of this.listeners) listener(state, before);
  }

  /** Redraw the dot and the banner (also after a language change). */
  paint() {
    const state = this.state || this.compute();
    const dot = document.getElementById("dot");
    const banner = document.getElementById("net");
    const label = { live: t("net.live"), reconnecting: t("net.reconnecting"),
      offline: t("net.offline"), refused: t("net.refused") }[state];
    if (dot) {
      dot.dataset.state = state;
      dot.title = label;
      dot.setAttribute("aria-label", label);
    }
    if (banner) {
      banner.hidden = state === "live" || state === "refused"; // the screen says so itself
      banner.textContent = state === "offline" ? t("net.offline_long") : t("net.reconnecting");
      banner.dataset.state = state;
    }
  }

  listen(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

export const connection = new Connection();
