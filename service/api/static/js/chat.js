// The table's quick chat and who is away (described in docs/WEBAPP.md): the messages the
// socket brings (each once: socket.js resumes by `chat_after` and drops seqs already seen),
// a bubble over the sender's seat for a few seconds, the log of the last ones, muting
// (mutes.js), sending over POST (a 429's `retry_after` turns the buttons off until then),
// and the "away" tag on the other players' seats from the socket's away frames.
//
// The table screen redraws its felt from each view; `paint` puts the chat's parts back on
// it afterwards (the button, the bubbles, the away tags), and a message paints only them.
import { bubble, chatLog, chatSheet } from "./chatui.js";
import { h, toast } from "./dom.js";
import { errorText } from "./errors.js";
import { seconds, t } from "./i18n.js";
import { isMuted, mute, muted, unmute } from "./mutes.js";

const KEEP = 50; // log lines kept
const SHOW_MS = { phrase: 4000, reaction: 3000 };
const FRESH = 8; // seconds: older messages (a catch-up) go to the log without a bubble

export class TableChat {
  constructor(screen) {
    this.screen = screen; // the TableScreen: its api, view, root, sheet and clock skew
    this.messages = [];
    this.bubbles = new Map(); // seat → {message, until}
    this.away = new Map(); // user_id → away, from the socket's frames
    this.ids = { phrases: [], reactions: [] };
    this.until = 0; // ms: rate limited until then
    this.unread = 0;
    this.open = null; // "sheet" | "log" | null
    this.timer = 0;
  }

  async load() {
    try {
      this.ids = await this.screen.app.api.request("GET", "/api/chat/phrases");
    } catch { /* no phrases this visit: the sheet offers none */ }
    if (this.open) this.show(this.open);
  }

  stop() {
    clearTimeout(this.timer);
    clearTimeout(this.waitTimer);
  }

  // --- what the socket brings --------------------------------------------------------------

  receive(message) {
    this.messages.push(message);
    if (this.messages.length > KEEP) this.messages.splice(0, this.messages.length - KEEP);
    const me = this.screen.app.me?.user?.id;
    if (isMuted(message.user_id)) return;
    const screen = this.screen;
    const age = Date.now() / 1000 - (screen.skew ?? screen.app.api.clockAhead ?? 0) - message.at;
    const fresh = age < FRESH;
    if (message.seat !== null && message.seat !== undefined && fresh) {
      const ms = message.reaction ? SHOW_MS.reaction : SHOW_MS.phrase;
      this.bubbles.set(message.seat, { message, until: Date.now() + ms });
      this.schedule();
    }
    if (fresh && message.user_id !== me && this.open !== "log") this.unread += 1;
    if (this.open) this.show(this.open);
    else this.paint();
  }

  awayFrame(frame) {
    this.away.set(frame.user_id, Boolean(frame.away));
    this.paint();
  }

  /** Take the bubbles down as they run out. */
  schedule() {
    clearTimeout(this.timer);
    const next = Math.min(...[...this.bubbles.values()].map((b) => b.until));
    if (Number.isFinite(next)) {
      this.timer = setTimeout(() => {
        const now = Date.now();
        for (const [seat, b] of this.bubbles) if (b.until <= now) this.bubbles.delete(seat);
        this.paint();
        this.schedule();
      }, Math.max(50, next - Date.now()));
    }
  }

  // --- drawing on the felt -----------------------------------------------------------------

  /** The chat button, the bubbles and the away tags on the felt just drawn. */
  paint() {
    const root = this.screen.root;
    const v = this.screen.view;
    const wrap = root.querySelector(".felt-wrap");
    if (!v || !wrap) return;
    wrap.querySelector(".chat-open")?.remove();
    const waiting = this.wait() > 0;
    wrap.append(h("button", { type: "button", class: "chat-open", dataset: { action: "chat" },
      disabled: waiting, "aria-label": t("chat.open"), title: t("chat.open"),
      onclick: () => this.show("sheet") },
    h("span", { "aria-hidden": "true" }, "💬"),
    this.unread ? h("span", { class: "unread", id: "chat-unread" }, String(this.unread)) : null));
    const me = v.you?.seat ?? null;
    for (const s of v.seats) {
      if (!s) continue;
      const el = wrap.querySelector(`.seat[data-seat="${s.seat}"]`);
      if (!el) continue;
      el.querySelector(".bubble")?.remove();
      const shown = this.bubbles.get(s.seat);
      if (shown && shown.until > Date.now() && !isMuted(shown.message.user_id)
          && shown.message.user_id === s.user_id) {
        const b = bubble(shown.message);
        // above the seat, or below one in the felt's upper half (clear of the tools)
        if (b && parseFloat(el.style.top) < 45) b.classList.add("below");
        if (b) el.append(b);
      }
      const away = s.user_id > 0 && s.seat !== me
        && (this.away.has(s.user_id) ? this.away.get(s.user_id) : Boolean(s.away));
      el.classList.toggle("away", away);
      el.querySelector(".tag.away")?.remove();
      if (away) el.querySelector(".tags")?.prepend(h("span", { class: "tag away" }, t("away.tag")));
    }
  }

  // --- the sheets ----------------------------------------------------------------------------

  wait() {
    return Math.max(0, Math.ceil((this.until - Date.now()) / 1000));
  }

  show(which) {
    const screen = this.screen;
    this.open = which;
    const close = () => { this.open = null; screen.sheet = null; screen.render(); };
    const me = screen.app.me?.user?.id;
    if (which === "log") {
      this.unread = 0;
      screen.sheet = chatLog({
        messages: this.messages.filter((m) => !isMuted(m.user_id)).slice().reverse(),
        muted: muted(), me,
        onMute: (m) => { mute(m.user_id, m.name); toast(t("chat.muted_now", { name: m.name }), "info"); this.show("log"); },
        onUnmute: (id) => { unmute(id); this.show("log"); },
        onBack: () => this.show("sheet"), close,
      });
    } else {
      const seat = screen.view?.you?.seat;
      screen.sheet = chatSheet({
        phrases: this.ids.phrases || [], reactions: this.ids.reactions || [],
        seated: seat !== null && seat !== undefined, wait: this.wait(), unread: this.unread,
        onSay: (body) => this.say(body), onLog: () => this.show("log"), close,
      });
    }
    screen.render();
  }

  async say(body) {
    const screen = this.screen;
    this.open = null;
    screen.sheet = null;
    screen.render();
    try {
      await screen.app.api.request("POST", `/api/tables/${encodeURIComponent(screen.tableId)}/chat`, body);
      screen.app.haptic("tap");
    } catch (err) {
      if (err.status === 429) {
        const after = Number(err.body?.error?.retry_after) || 2;
        this.until = Date.now() + after * 1000;
        toast(t("chat.rate_limited", { seconds: seconds(this.wait()) }));
        clearTimeout(this.waitTimer);
        this.waitTimer = setTimeout(() => (this.open ? this.show(this.open) : this.paint()),
          after * 1000 + 50);
        this.paint();
      } else {
        toast(errorText(err));
      }
    }
  }
}
