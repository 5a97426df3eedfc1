// The table: seats around the felt, pot and level, whose turn and its clock, your cards,
// the actions the server says are legal now, svara join window, the last hand's result.
// Every live event triggers a re-fetch of the caller's view: the server's view is the truth.
import { ApiError } from "./api.js";
import { hand } from "./cards.js";
import { clamp, h, replace, toast } from "./dom.js";
import { TableSocket } from "./socket.js";

const PHASE_TEXT = { blind: "Blind bets", betting: "Betting", svara_join: "Svara — join?",
  settled: "Hand over" };
const ACTION_ORDER = ["look", "sit_in", "blind", "pass", "call", "raise", "fold",
  "join_svara", "skip_svara"];

export class TableScreen {
  constructor(app, tableId) {
    this.app = app;
    this.tableId = tableId;
    this.view = null;
    this.result = null; // the last settled hand: {number, winners, amounts, pot, reason, shown}
    this.shown = null; // the last showdown's hands, by seat
    this.busy = false;
    this.audits = new Map(); // hand number → the rendered audit verdict
    this.skew = null; // seconds this device's clock is ahead of the server's
    this.leaveArmed = false; // "Leave" tapped once during a hand: the next tap folds and leaves
    this.amounts = new Map(); // action type → the amount typed for it (this hand)
    this.amountsHand = null;
    this.root = h("section", { class: "table-screen" });
    this.clock = 0;
    this.refreshing = null;
    this.again = false;
  }

  async mount(screen) {
    replace(screen, this.root);
    replace(this.root, h("p", { class: "muted center" }, "Opening the table…"));
    try {
      this.view = await this.app.api.view(this.tableId);
    } catch (err) {
      replace(this.root, h("div", { class: "panel" }, h("p", {}, err.message),
        h("button", { type: "button", onclick: () => this.app.openLobby() }, "Back to lobby")));
      return;
    }
    this.noteResult();
    this.render();
    this.socket = new TableSocket({
      tableId: this.tableId, initData: () => this.app.initData, after: this.view.version,
      onEvent: (event, view) => this.onEvent(event, view),
      onStatus: (status) => this.setStatus(status),
      onFatal: (message, options) => this.socketRefused(message, options),
    }).start();
    this.clock = setInterval(() => this.tick(), 250);
  }

  /** The feed refused our initData: in dev mode renew it (any API call does) and go on. */
  async socketRefused(message, { retry = true } = {}) {
    this.setStatus("offline");
    if (retry && this.app.dev && !this.renewed) {
      this.renewed = true;
      try {
        await this.app.api.me();
        this.socket.start();
        return;
      } catch { /* fall through to the message */ }
    }
    toast(message);
  }

  unmount() {
    clearInterval(this.clock);
    clearTimeout(this.viewTimer);
    if (this.socket) this.socket.stop();
  }

  onEvent(event, view) {
    const data = event.data || {};
    if (typeof event.at === "number") {
      // How far this device's clock runs ahead of the server's (plus a little latency), so
      // countdowns follow the server's deadlines even on a phone with a wrong clock.
      const ahead = Date.now() / 1000 - event.at;
      this.skew = this.skew === null ? ahead : Math.min(this.skew, ahead);
    }
    if (event.type === "showdown" && data.hands) this.shown = data.hands;
    if (event.type === "hand_settled") {
      this.result = { ...data, shown: this.shown, names: this.names() };
      this.shown = null;
    }
    if (view) {
      this.show(view);
    } else {
      // The frame came without a view (one that a newer frame follows at once, or an old
      // server): the next frame brings it; fetch only if none has come shortly.
      const version = event.version;
      clearTimeout(this.viewTimer);
      this.viewTimer = setTimeout(() => {
        if (!this.view || this.view.version < version) this.refresh();
      }, 300);
    }
  }

  /** Take a view the socket brought, unless a newer one is already shown. */
  show(view) {
    if (this.view && view.version < this.view.version) return;
    this.view = view;
    this.noteResult();
    this.render();
  }

  /** Re-fetch the view; events arriving meanwhile cause exactly one more fetch. */
  refresh() {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        try {
          this.show(await this.app.api.view(this.tableId));
        } catch (err) {
          toast(err.message);
        }
      } while (this.again);
      this.refreshing = null;
    })();
    return this.refreshing;
  }

  /** A settled hand in the view (e.g. opened between hands) becomes the result banner. */
  noteResult() {
    const hand_ = this.view && this.view.hand;
    if (!hand_ || !hand_.result || (this.result && this.result.number >= hand_.number)) return;
    const shown = {};
    for (const seat of this.view.seats) {
      if (seat.cards && seat.in_hand) shown[seat.seat] = { cards: seat.cards, score: seat.score };
    }
    const r = hand_.result;
    this.result = { number: hand_.number, winners: r.winner_seats, amounts: r.amounts, pot: r.pot,
      reason: r.reason, shown: hand_.phase === "settled" && r.reason !== "last_player" ? shown : null,
      names: this.names() };
  }

  names() {
    const names = {};
    for (const seat of this.view?.seats || []) names[seat.seat] = seat.name;
    return names;
  }

  setStatus(status) {
    this.status = status;
    const el = this.root.querySelector(".live");
    if (el) {
      el.textContent = status === "live" ? "● live" : status === "connecting" ? "○ connecting"
        : "○ offline — reconnecting";
      el.dataset.status = status;
    }
  }

  // --- rendering ---------------------------------------------------------------------------

  render() {
    const v = this.view;
    const you = v.you || {};
    // Events redraw the screen often; an amount being typed must survive that, focus included.
    const focused = document.activeElement?.dataset?.amount;
    if (v.hand?.number !== this.amountsHand) {
      this.amounts.clear();
      this.amountsHand = v.hand?.number;
    }
    replace(this.root,
      this.header(v),
      this.felt(v, you),
      this.svaraBanner(v),
      this.resultBanner(),
      this.mine(v, you),
      you.seat === null || you.seat === undefined ? this.sitDown(v) : this.actions(v, you));
    this.setStatus(this.status || "connecting");
    this.tick();
    if (focused) this.root.querySelector(`input[data-amount="${focused}"]`)?.focus();
  }

  header(v) {
    const s = v.settings || {};
    const seated = v.you && v.you.seat !== null && v.you.seat !== undefined;
    return h("div", { class: "table-head" },
      h("div", { class: "grow" },
        h("strong", { title: v.table_id }, `Table ${v.table_id.slice(0, 6)}`),
        h("small", { class: "muted" }, ` · ante ${s.ante}`
          + (s.bet_unit ? ` · unit ${s.bet_unit}` : "") + ` · ${s.max_seats} seats`)),
      h("span", { class: "live" }),
      seated && (this.leaveArmed
        ? h("button", { type: "button", class: "danger", dataset: { action: "leave" },
          onclick: () => this.leave() }, "Fold and leave?")
        : h("button", { type: "button", class: "ghost", dataset: { action: "leave" },
          onclick: () => this.leave() }, "Leave")));
  }

  felt(v, you) {
    const hand_ = v.hand;
    const max = (v.settings && v.settings.max_seats) || Math.max(2, v.seats.length);
    const mine = you.seat ?? null;
    const bySeat = new Map(v.seats.map((s) => [s.seat, s]));
    const spots = [];
    for (let n = 0; n < max; n++) {
      // Your seat sits at the bottom; the others follow clockwise.
      const offset = mine === null ? n : (n - mine + max) % max;
      const angle = Math.PI / 2 + (2 * Math.PI * offset) / max;
      const [rx, ry] = max > 6 ? [40, 42] : [37, 38];
      const style = `left:${50 + rx * Math.cos(angle)}%;top:${50 + ry * Math.sin(angle)}%`;
      const seat = bySeat.get(n);
      spots.push(seat ? this.seat(seat, hand_, seat.seat === mine, style)
        : h("div", { class: "seat empty", style }, "free"));
    }
    const center = hand_
      ? h("div", { class: "felt-center" },
        h("div", { class: "pot" }, h("small", {}, "Pot"), h("strong", { id: "pot" }, hand_.pot)),
        h("div", { class: "muted" }, `Level ${hand_.level}`),
        h("div", { class: "phase" }, `Hand ${hand_.number}${hand_.deal > 1 ? ` · deal ${hand_.deal}` : ""}`
          + ` · ${PHASE_TEXT[hand_.phase] || hand_.phase}`),
        h("div", { class: "commit", title: "Deck commitment: sha256 of the seed revealed after the hand" },
          `deck ${String(hand_.commitment || "").slice(0, 10)}…`))
      : h("div", { class: "felt-center" }, h("div", { class: "phase" }, v.seats.length < 2
        ? "Waiting for players" : "Next hand soon"));
    return h("div", { class: max > 6 ? "felt many" : "felt" }, center, spots);
  }

  seat(s, hand_, isMe, style) {
    const turn = hand_ && hand_.turn === s.seat && hand_.phase !== "settled";
    const classes = ["seat"];
    if (isMe) classes.push("me");
    if (turn) classes.push("turn");
    if (s.folded) classes.push("folded");
    if (!s.in_hand) classes.push("out");
    const badges = [];
    if (hand_ && hand_.dealer === s.seat) badges.push(h("span", { class: "badge dealer", title: "dealer" }, "D"));
    if (s.blind) badges.push(h("span", { class: "badge" }, "blind"));
    if (s.looked) badges.push(h("span", { class: "badge" }, "looked"));
    if (s.folded) badges.push(h("span", { class: "badge" }, "folded"));
    if (s.sat_out) badges.push(h("span", { class: "badge" }, "sat out"));
    const cards = isMe ? null : hand(s.cards, { dealt: Boolean(hand_) && s.in_hand && !s.folded });
    return h("div", { class: classes.join(" "), style, dataset: { seat: s.seat } },
      h("div", { class: "name" }, s.name),
      h("div", { class: "stack" }, `${s.stack}`, s.put_in ? h("span", { class: "put" }, ` +${s.put_in}`) : null),
      badges.length ? h("div", { class: "badges" }, badges) : null,
      cards && h("div", { class: "seat-cards" }, cards),
      s.score !== null && s.score !== undefined && !isMe ? h("div", { class: "score" }, `${s.score}`) : null,
      turn ? h("div", { class: "clock", dataset: { deadline: hand_.deadline ?? "" } }) : null);
  }

  svaraBanner(v) {
    const sv = v.hand && v.hand.phase === "svara_join" ? v.hand.svara : null;
    if (!sv) return null;
    const names = this.names();
    const tied = sv.tied.map((seat) => names[seat] ?? `seat ${seat}`).join(" & ");
    return h("div", { class: "panel svara", id: "svara" },
      h("strong", {}, `Svara! ${tied} tied.`),
      h("div", {}, `The pot of ${v.hand.pot} is played again. Others may join for ${sv.fee} chips `
        + `(${sv.answered.length}/${sv.eligible.length} answered`
        + `${sv.joined.length ? `, ${sv.joined.map((s) => names[s] ?? s).join(", ")} in` : ""}). `,
      h("span", { class: "clock", dataset: { deadline: sv.deadline ?? "" } })));
  }

  resultBanner() {
    const r = this.result;
    if (!r) return null;
    const names = r.names || {};
    const winners = (r.winners || []).map((seat) => names[seat] ?? `seat ${seat}`);
    const amounts = r.amounts || {};
    const won = Object.values(amounts).reduce((a, b) => a + b, 0);
    const how = { last_player: "everyone else folded", showdown: "best hand at showdown",
      split: "tie — pot split", svara_walkover: "nobody else joined the svara" }[r.reason] || "";
    const shown = r.shown ? Object.entries(r.shown).map(([seat, sh]) =>
      h("div", { class: "shown" }, h("span", {}, names[seat] ?? `seat ${seat}`),
        hand(sh.cards), h("b", {}, ` ${sh.score}`))) : [];
    const audit = h("div", { class: "audit" }, this.audits.get(r.number)
      || h("button", { type: "button", class: "link", dataset: { action: "audit" },
        onclick: () => this.showAudit(r.number, audit) }, "Check this hand's deck"));
    return h("div", { class: "panel result", id: "result" },
      h("div", {}, h("strong", {}, `Hand ${r.number}: ${winners.join(" & ") || "—"} `
        + `won ${won || r.pot}`), how && h("small", { class: "muted" }, ` (${how})`)),
      shown, audit);
  }

  /** Replay the settled hand on the server: hash chain, decks against commitments, chips. */
  async showAudit(number, box) {
    replace(box, h("small", { class: "muted" }, "Checking…"));
    try {
      const a = await this.app.api.audit(this.tableId, number);
      const checks = Object.entries(a.checks || {}).map(([name, ok]) => `${name} ${ok ? "✓" : "✗"}`);
      const verdict = h("span", {},
        h("small", { class: a.verified ? "ok" : "bad", id: "audit" },
          `${a.verified ? "Verified" : "NOT verified"}: ${checks.join(" · ")}`),
        h("small", { class: "muted" }, ` — ${(a.deals || []).length} deal(s), seeds revealed`));
      this.audits.set(number, verdict); // kept while the banner is re-rendered
      replace(box, verdict);
    } catch (err) {
      replace(box, h("small", { class: "bad" }, err.message));
    }
  }

  mine(v, you) {
    if (you.seat === null || you.seat === undefined) return null;
    const me = v.seats.find((s) => s.seat === you.seat);
    const inHand = Boolean(v.hand) && me && me.in_hand && !me.folded;
    const cards = hand(you.cards, { dealt: inHand, size: "big" });
    return h("div", { class: "panel mine" },
      h("div", { class: "grow" },
        h("small", { class: "muted" }, "Your cards"),
        h("div", { id: "my-cards" }, cards || h("span", { class: "muted" }, "not in this hand"))),
      you.score !== null && you.score !== undefined
        ? h("div", { class: "my-score" }, h("small", { class: "muted" }, "Score"),
          h("strong", { id: "my-score" }, you.score)) : null,
      h("div", { class: "right" }, h("small", { class: "muted" }, "Stack"),
        h("strong", {}, me ? me.stack : "—")));
  }

  actions(v, you) {
    const legal = [...(you.legal || [])].sort(
      (a, b) => ACTION_ORDER.indexOf(a.type) - ACTION_ORDER.indexOf(b.type));
    const myTurn = v.hand && v.hand.turn === you.seat;
    const note = legal.length ? null : h("p", { class: "muted center" },
      v.hand && v.hand.phase !== "settled" ? "Waiting for the others…" : "Waiting for the next hand…");
    return h("div", { class: `panel actions${myTurn ? " my-turn" : ""}` },
      myTurn && h("div", { class: "your-turn" }, "Your turn ", h("span", { class: "clock mine-clock",
        dataset: { deadline: v.hand.deadline ?? "" } })),
      note, h("div", { class: "buttons" }, legal.map((a) => this.actionControl(a, v, you))));
  }

  actionControl(a, v, you) {
    const me = v.seats.find((s) => s.seat === you.seat);
    const fixed = a.amount ?? (a.min !== undefined && a.min === a.max ? a.min : undefined);
    const label = {
      look: "Look", pass: "Pass", fold: "Fold", sit_in: "Sit in", skip_svara: "Skip svara",
      call: `Call ${a.amount ?? Math.max(0, (v.hand?.level ?? 0) - (me?.put_in ?? 0))}`,
      join_svara: `Join svara${fixed !== undefined ? ` (${fixed})` : ""}`,
      blind: "Blind", raise: (v.hand?.level ?? 0) === 0 ? "Bet" : "Raise to",
    }[a.type] || a.type;
    if ((a.type === "blind" || a.type === "raise") && fixed === undefined) {
      const typed = this.amounts.get(a.type);
      const input = h("input", { type: "number", min: a.min, max: a.max, step: 1,
        value: typed === undefined ? a.min : typed, inputmode: "numeric",
        "aria-label": `${a.type} amount`, dataset: { amount: a.type } });
      const button = h("button", { type: "submit", class: "primary", dataset: { action: a.type } },
        label);
      const check = () => {
        const n = Number(input.value);
        button.disabled = !Number.isInteger(n) || n < a.min || n > a.max;
      };
      input.addEventListener("input", () => { this.amounts.set(a.type, input.value); check(); });
      input.addEventListener("change", () => {
        input.value = clamp(Math.round(Number(input.value) || a.min), a.min, a.max);
        this.amounts.set(a.type, input.value);
        check();
      });
      check();
      return h("form", { class: "amount", onsubmit: (e) => {
        e.preventDefault();
        this.act(a.type, Number(input.value));
      } }, input, button, h("small", { class: "muted" }, `${a.min}–${a.max}`));
    }
    const amount = a.type === "blind" || a.type === "raise" ? fixed : undefined;
    const text = amount !== undefined ? `${label} ${amount}` : label;
    const kind = a.type === "fold" || a.type === "skip_svara" || a.type === "pass" ? "ghost" : "primary";
    return h("button", { type: "button", class: kind, dataset: { action: a.type },
      onclick: () => this.act(a.type, amount) }, text);
  }

  sitDown(v) {
    const s = v.settings || {};
    const low = s.min_buy_in ?? 10 * s.ante;
    const high = s.max_buy_in ?? 100 * s.ante;
    const input = h("input", { type: "number", min: low, max: high, value: low, step: 1,
      inputmode: "numeric", "aria-label": "Buy-in" });
    const full = v.seats.length >= (s.max_seats || 10);
    return h("form", { class: "panel actions", onsubmit: async (e) => {
      e.preventDefault();
      try {
        this.view = await this.app.api.seat(this.tableId, Number(input.value));
        this.render();
      } catch (err) {
        toast(err.message);
      }
    } }, h("p", { class: "muted" }, full ? "The table is full; you are watching."
      : `You are watching. Sit down with ${low}–${high} chips:`),
    !full && h("div", { class: "buttons" }, input,
      h("button", { type: "submit", class: "primary", dataset: { action: "seat" } }, "Sit down")));
  }

  // --- doing things ------------------------------------------------------------------------

  async act(type, amount) {
    if (this.busy) return;
    this.busy = true;
    for (const b of this.root.querySelectorAll(".actions button")) b.disabled = true;
    try {
      await this.app.api.act(this.tableId, type, amount);
      this.app.haptic("light");
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err));
    } finally {
      this.busy = false;
      await this.refresh();
    }
  }

  /** Leaving mid-hand folds it: that takes a second tap within a few seconds. */
  async leave() {
    const me = this.view.seats.find((s) => s.seat === this.view.you?.seat);
    const playing = this.view.hand && this.view.hand.phase !== "settled" && me && me.in_hand;
    if (playing && !this.leaveArmed) {
      this.leaveArmed = true; // survives re-renders until it times out
      this.render();
      setTimeout(() => { this.leaveArmed = false; if (this.view) this.render(); }, 4000);
      return;
    }
    this.leaveArmed = false;
    try {
      this.view = await this.app.api.leave(this.tableId);
      this.render();
      toast("You left the table; your chips are back in your wallet.", "info");
    } catch (err) {
      toast(err.message);
    }
  }

  tick() {
    // Event times are precise; the HTTP Date header (whole seconds) covers the time before.
    const now = Date.now() / 1000 - (this.skew ?? this.app.api.clockAhead ?? 0);
    for (const el of this.root.querySelectorAll(".clock")) {
      const deadline = Number(el.dataset.deadline);
      if (!deadline) { el.textContent = ""; continue; }
      const left = Math.max(0, Math.ceil(deadline - now));
      el.textContent = `${left}s`;
      el.classList.toggle("urgent", left <= 5);
    }
  }
}
