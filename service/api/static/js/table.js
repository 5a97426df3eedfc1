// The table screen: the felt, what is happening in words, the svara, the last result, and
// the action bar fixed at the bottom of the screen (your cards, your clock, exactly the
// actions the server's `legal` list allows, amounts bounded by it).
//
// The server's view is the truth: every live event brings the caller's view at its version.
// Events also drive what a view cannot say: the last action in a line, chips flying to the
// pot, the deal, sounds and haptics, and the result of a hand as it settles.
//
// An action is sent with an action_id of its own. When the network fails on the way, the
// same action (same id) is sent again as soon as the connection is back: the server answers
// a repeated id with its first result, so it is carried out exactly once. Meanwhile the bar
// says it is waiting; a refusal brings the buttons back at once with the reason.
import { ApiError } from "./api.js";
import { card, cardBack } from "./cards.js";
import { amountPicker } from "./controls.js";
import { h, newId, replace, toast, who } from "./dom.js";
import { errorText } from "./errors.js";
import { felt } from "./felt.js";
import { num, seconds, t, tNodes } from "./i18n.js";
import { buyInForm, stakes, tableName } from "./lobby.js";
import { logEvent, partialLog, settledResult, startLog } from "./handlog.js";
import { flyChip } from "./motion.js";
import { connection } from "./net.js";
import { eventLine, explain, myNotice, resultPanel, seatNames, svaraPanel } from "./panels.js";
import { keepEvent, keepView } from "./pins.js";
import { clientSeed, delivered, owed } from "./seed.js";
import { TableSocket } from "./socket.js";
import { play } from "./sound.js";
import { closingConfirmation } from "./telegram.js";

const ORDER = ["sit_in", "join_svara", "skip_svara", "fold", "pass", "call", "blind", "raise", "look"];
const QUIET = new Set(["fold", "pass", "skip_svara"]); // the buttons that give up something
const RECENT = 3; // seconds: older events (a catch-up) make no sound and fly no chips

export class TableScreen {
  constructor(app, tableId) {
    this.app = app;
    this.tableId = tableId;
    this.view = null;
    this.result = null; // the last settled hand, in GET /hands's shape
    this.log = null; // what the events said of the hand being played: {number, showdowns, ...}
    this.line = null; // the last thing that happened, in words
    this.pending = null; // an action sent and not yet answered: {id, type, amount, waiting}
    this.skew = null; // seconds this device's clock is ahead of the server's
    this.leaveArmed = false; // "Leave" tapped once during a hand: the next tap folds and leaves
    this.amounts = new Map(); // action type → the amount chosen for it (this hand)
    this.amountsHand = null;
    this.dealSeen = new Set(); // deals seen being dealt live: those are animated
    this.sheet = null; // the open info sheet, kept across re-renders
    this.root = h("section", { class: "table-screen" });
    this.fx = h("div", { class: "fx", "aria-hidden": "true" });
    this.clock = 0;
    this.refreshing = null;
    this.again = false;
    this.unlisten = null;
  }

  async mount(screen) {
    replace(screen, this.root);
    document.body.append(this.fx);
    replace(this.root, h("div", { class: "loading" }, h("span"), h("span"), h("span")));
    try {
      this.view = await this.app.api.view(this.tableId);
    } catch (err) {
      replace(this.root, h("div", { class: "panel" }, h("p", {}, errorText(err)),
        h("button", { type: "button", onclick: () => this.app.openLobby() }, t("table.to_lobby"))));
      return;
    }
    if (this.gone) return; // left before the table arrived: no socket, no clock
    this.log = partialLog(this.view);
    this.render();
    this.loadLastResult();
    this.socket = new TableSocket({
      tableId: this.tableId, initData: () => this.app.initData, after: this.view.version,
      onEvent: (event, view) => this.onEvent(event, view),
      onLive: () => this.resend(),
      onFatal: (why) => this.socketRefused(why),
    }).start();
    this.unlisten = connection.listen((state) => {
      if (state !== "offline") this.resend();
      this.paintBar();
    });
    this.clock = setInterval(() => this.tick(), 250);
  }

  unmount() {
    this.gone = true;
    clearInterval(this.clock);
    clearTimeout(this.viewTimer);
    clearTimeout(this.retryTimer);
    if (this.socket) this.socket.stop();
    if (this.unlisten) this.unlisten();
    this.fx.remove();
    closingConfirmation(false);
  }

  /** Back from the background: fetch the view now (the socket catches up meanwhile). */
  resume() {
    this.socket?.wake();
    this.refresh();
  }

  /** The feed refused our initData: in dev mode renew it (any API call does) and go on. */
  async socketRefused(why) {
    if (why === "login" && this.app.dev && !this.renewed) {
      this.renewed = true;
      try {
        await this.app.api.me();
        this.socket.start();
        return;
      } catch { /* fall through to the message */ }
    }
    toast(why === "login" ? t("error.login") : t("error.table_not_found"));
  }

  /** The hand before this one (a reload, or a table opened between hands) as the result;
   *  `settled`: the number of a hand that just settled, asked for whatever the view says
   *  (the view may still be the one before it), again shortly if the history lags. */
  async loadLastResult(settled = 0, tries = 3) {
    const hv = this.view?.hand;
    if (!settled && (!hv || (hv.number <= 1 && hv.phase !== "settled"))) return;
    try {
      const { hands } = await this.app.api.hands(this.tableId, 1);
      if (hands.length && (!this.result || this.result.number < hands[0].number)) {
        this.result = hands[0];
        this.render();
      }
      if (settled && (hands[0]?.number ?? 0) < settled && tries > 1 && !this.gone) {
        setTimeout(() => this.loadLastResult(settled, tries - 1), 500);
      }
    } catch { /* the result is a nicety: the table works without it */ }
  }

  // --- events --------------------------------------------------------------------------------

  onEvent(event, view) {
    keepEvent(this.tableId, event); // its hash: a later audit is held to it
    const data = event.data || {};
    let recent = false;
    if (typeof event.at === "number") {
      // How far this device's clock runs ahead of the server's (plus a little latency), so
      // countdowns follow the server's deadlines even on a phone with a wrong clock.
      const ahead = Date.now() / 1000 - event.at;
      this.skew = this.skew === null ? ahead : Math.min(this.skew, ahead);
      recent = ahead - this.skew < RECENT;
    }
    const before = this.view;
    const names = seatNames(before);
    this.record(event, data, names);
    const line = eventLine(event, { ...names, ...(view ? seatNames(view) : {}) });
    if (line) this.line = line;
    else if (event.type === "hand_started") this.line = null; // a new hand: old news goes
    if (view) {
      this.show(view);
    } else {
      // The frame came without a view (one that a newer frame follows at once): the next
      // frame brings it; fetch only if none has come shortly.
      const version = event.version;
      clearTimeout(this.viewTimer);
      this.viewTimer = setTimeout(() => {
        if (!this.view || this.view.version < version) this.refresh();
      }, 300);
    }
    if (recent) this.feel(event, data, before);
  }

  /** Keep what the events say of the hand, for its result (handlog.js). */
  record(event, data, names) {
    const type = event.type;
    const log = this.log;
    if (type === "hand_started") {
      this.log = startLog(data);
    } else if (type === "cards_dealt") {
      this.dealSeen.add(`${log?.number ?? this.view?.hand?.number}:${data.deal}`);
    } else if (type === "hand_settled") {
      this.log = null;
      if (log && log.number === data.number && !log.partial) {
        this.result = settledResult(log, data, names);
      } else {
        // joined mid-hand: the events seen are not all; what was put in may be known
        this.stakes = log && log.number === data.number ? { number: log.number, paid: log.paid } : null;
        this.loadLastResult(data.number);
      }
    } else if (log) {
      logEvent(log, type, data);
    }
  }

  /** Sound, haptics and flying chips for an event that just happened. */
  feel(event, data, before) {
    const type = event.type;
    const me = this.view?.you?.seat ?? null;
    const seatEl = (seat) => this.root.querySelector(`.felt .seat[data-seat="${seat}"]`);
    const pot = this.root.querySelector("#pot");
    const chip = (seat, amount) => flyChip(this.fx, seatEl(seat), pot, num(amount));
    if (type === "cards_dealt") play("deal");
    else if (["blind_placed", "called", "raised"].includes(type)) {
      chip(data.seat, data.amount);
      play("chip");
    } else if (type === "svara_joined") {
      chip(data.seat, data.fee);
      play("chip");
    } else if (type === "antes_paid") {
      for (const seat of data.seats || []) flyChip(this.fx, seatEl(seat), pot, "");
    } else if (type === "hand_settled") {
      const winners = Object.keys(data.amounts || {}).map(Number);
      for (const seat of winners) flyChip(this.fx, pot, seatEl(seat), num(data.amounts[seat]));
      if (me !== null && winners.includes(me)) {
        play("win");
        this.app.haptic("win");
      } else {
        play("chip");
      }
    }
    // Your turn: once per turn handed to you.
    const hv = this.view?.hand;
    const wasMine = before?.hand?.turn === me && before?.hand?.phase !== "settled";
    const joinOpen = hv?.phase === "svara_join" && hv.svara?.eligible.includes(me)
      && !hv.svara.answered.includes(me);
    const mine = me !== null && hv && ((hv.turn === me && hv.phase !== "settled") || joinOpen);
    const wasOpen = before?.hand?.phase === "svara_join";
    if (mine && !(wasMine || (joinOpen && wasOpen))) {
      play("turn");
      this.app.haptic("turn");
    }
  }

  /** Take a view the socket brought, unless a newer one is already shown. */
  show(view) {
    if (this.view && view.version < this.view.version) return;
    this.view = view;
    if (!this.log) this.log = partialLog(view);
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
          if (err.code !== "network") toast(errorText(err));
        }
      } while (this.again);
      this.refreshing = null;
    })();
    return this.refreshing;
  }

  /** Seated without a seed of one's own (just sat down -- here, from the lobby, buying in
   *  again, or on another device), or owed a seed changed in the settings that did not reach
   *  this table then: this device's seed goes to the table (seed.js). A refusal is not
   *  retried until the next visit (the deck is fair without it: the server's seed is
   *  committed before the deal either way). */
  async giveSeed(v) {
    const seated = v.you?.seat !== null && v.you?.seat !== undefined;
    if (!seated || this.seedSending || this.seedRefused) return;
    const mine = clientSeed();
    if (v.you.client_seed && !(owed(this.tableId) && v.you.client_seed !== mine)) return;
    this.seedSending = true;
    try {
      const view = await this.app.api.seed(this.tableId, mine);
      delivered(this.tableId);
      this.show(view);
    } catch {
      this.seedRefused = true;
    } finally {
      this.seedSending = false;
    }
  }

  // --- rendering -----------------------------------------------------------------------------

  mySeat(v = this.view) {
    return v.seats.find((s) => s.seat === v.you?.seat) || null;
  }

  /** Out of chips here: below one ante, and not in a hand being played. */
  busted(v = this.view) {
    const me = this.mySeat(v);
    if (!me) return false;
    const playing = v.hand && v.hand.phase !== "settled" && me.in_hand;
    return me.stack < (v.settings?.ante ?? 1) && !playing;
  }

  render() {
    const v = this.view;
    keepView(this.tableId, v, this.app.me?.user?.id);
    this.giveSeed(v);
    if (v.hand?.number !== this.amountsHand) {
      this.amounts.clear();
      this.amountsHand = v.hand?.number;
    }
    const focused = document.activeElement?.dataset?.amount;
    const me = this.mySeat(v);
    this.app.setTitle(tableName({ host: v.host, practice: v.seats.some((s) => s.user_id < 0) }),
      stakes({ ante: v.settings?.ante, bet_unit: v.settings?.bet_unit }));
    const hv = v.hand;
    const dealKey = hv && this.dealSeen.has(`${hv.number}:${hv.deal}`) ? `${hv.number}:${hv.deal}` : null;
    const explanation = explain(v);
    const many = (v.settings?.max_seats ?? 6) > 6;
    const seat = v.you?.seat ?? null;
    // known when this page saw the whole hand, or its first deal's chips in a view
    const stake = this.result?.stakes?.[seat]
      ?? (this.stakes?.number === this.result?.number ? this.stakes?.paid[seat] : undefined);
    const settledStake = this.result && this.result.number === hv?.number ? stake : undefined;
    replace(this.root,
      h("div", { class: `felt-wrap${many ? " many" : ""}` }, this.tools(v, me),
        felt(v, { dealKey, stake: settledStake, onInfo: () => this.openInfo() })),
      h("div", { class: "story", id: "story" },
        explanation.length ? h("p", { class: "explain", id: "explain" }, explanation) : null,
        this.line ? h("p", { class: "last-line muted", id: "last-line" }, this.line) : null),
      svaraPanel(v),
      resultPanel(this.result, { me: seat, stake,
        onAudit: () => this.app.openAudit(this.tableId, this.result.number),
        onHistory: () => this.app.openHistory(this.tableId) }),
      h("div", { class: "bar-space" }),
      this.bar(v, me),
      this.sheet);
    closingConfirmation(Boolean(me && hv && hv.phase !== "settled" && me.in_hand));
    this.tick();
    if (focused) this.root.querySelector(`input[data-amount="${focused}"]`)?.focus();
    this.sizeBar();
  }

  /** The page leaves room at its bottom for the fixed action bar, whatever its height. */
  sizeBar() {
    const bar = this.root.querySelector(".action-bar");
    const space = this.root.querySelector(".bar-space");
    if (bar && space) space.style.height = `${bar.offsetHeight + 8}px`;
  }

  tools(v, me) {
    const hv = v.hand;
    const playing = hv && hv.phase !== "settled" && me && me.in_hand;
    return h("div", { class: "tools" },
      h("button", { type: "button", class: "ghost small", dataset: { action: "history" },
        onclick: () => this.app.openHistory(this.tableId) }, t("table.history")),
      me && (this.leaveArmed && playing
        ? h("button", { type: "button", class: "danger small", dataset: { action: "leave" },
          onclick: () => this.leave() }, t("table.leave_confirm"))
        : h("button", { type: "button", class: "ghost small", dataset: { action: "leave" },
          onclick: () => this.leave() }, t("table.leave"))));
  }

  /** The commitment behind the felt's info button: what it is and how to check it. */
  openInfo() {
    const hv = this.view.hand;
    if (!hv) return;
    const close = () => { this.sheet = null; this.render(); };
    this.sheet = h("div", { class: "sheet-back", onclick: (e) => { if (e.target === e.currentTarget) close(); } },
      h("div", { class: "sheet panel", id: "info", role: "dialog", "aria-modal": "true" },
        h("h2", {}, t("fair.title")),
        h("p", {}, t("fair.text")),
        h("code", { class: "commitment", dir: "ltr", translate: "no" }, hv.commitment),
        h("p", { class: "muted" }, t("fair.after")),
        h("div", { class: "sheet-buttons" },
          h("button", { type: "button", class: "ghost", onclick: () => this.app.openHistory(this.tableId) },
            t("table.history")),
          h("button", { type: "button", class: "primary", dataset: { action: "close" }, onclick: close },
            t("common.close")))));
    this.render();
  }

  // --- the action bar ------------------------------------------------------------------------

  bar(v, me) {
    const hv = v.hand;
    const you = v.you || {};
    const content = [];
    if (!me && this.rebuying) {
      // buying in again stands up and sits down: not a spectator for that moment
      content.push(h("p", { class: "bar-status waiting" }, t("bar.sending")));
    } else if (!me) {
      content.push(this.sitDown(v));
    } else {
      const busted = this.busted(v);
      if (!busted) content.push(this.myRow(v, me, you));
      content.push(myNotice(v, { busted }));
      if (busted) content.push(this.rebuy(v, me));
      else content.push(this.actions(v, you));
    }
    const myTurn = me && hv && hv.phase !== "settled" && hv.turn === me.seat;
    return h("div", { class: `action-bar${myTurn ? " my-turn" : ""}`, id: "action-bar",
      dataset: this.pending ? { pending: this.pending.type } : null }, content);
  }

  myRow(v, me, you) {
    const hv = v.hand;
    const inHand = Boolean(hv) && me.in_hand && hv.phase !== "settled";
    const cards = you.cards && you.cards.length
      ? h("div", { class: "my-cards", id: "my-cards", dir: "ltr" }, you.cards.map((c) => card(c, "medium")))
      : h("div", { class: "my-cards", id: "my-cards", dir: "ltr" },
        inHand ? [cardBack("medium"), cardBack("medium"), cardBack("medium")] : null);
    const turn = hv && hv.phase !== "settled" && hv.turn === me.seat;
    const look = (you.legal || []).find((a) => a.type === "look");
    return h("div", { class: "my-row" },
      cards,
      look ? this.button(look, v, you, null) : null,
      you.cards && you.score !== null && you.score !== undefined
        ? h("div", { class: "my-score" }, h("small", {}, t("bar.score")),
          h("strong", { id: "my-score", dataset: { scoreSeat: me.seat } }, num(you.score)))
        : null,
      h("div", { class: "my-stack" }, h("small", {}, t("bar.stack")),
        h("strong", { id: "my-stack" }, num(me.stack))),
      turn ? h("div", { class: "my-clock", id: "my-clock" }, h("small", {}, t("bar.your_turn")), " ",
        h("strong", { class: "clock mine-clock", dataset: { deadline: hv.deadline ?? "" } }))
        : null);
  }

  actions(v, you) {
    // (Look sits beside the cards, in the row above)
    const legal = [...(you.legal || [])].filter((a) => a.type !== "look")
      .sort((a, b) => ORDER.indexOf(a.type) - ORDER.indexOf(b.type));
    const status = h("p", { class: "bar-status", id: "bar-status" });
    const wrap = h("div", { class: "bar-actions" }, status);
    if (!legal.length) {
      this.paintStatus(status, wrap); // waiting: for another player, or to send ours
      return wrap;
    }
    const ranged = legal.find((a) => (a.type === "raise" || a.type === "blind")
      && a.amount === undefined && a.min !== a.max);
    let picker = null;
    const rangedButton = { el: null };
    if (ranged) {
      picker = this.picker(ranged, v, (value, ok) => {
        if (!rangedButton.el) return;
        rangedButton.el.disabled = !ok || Boolean(this.pending);
        rangedButton.el.querySelector(".amt").textContent = num(value);
      });
      wrap.append(picker.el);
    }
    const buttons = legal.map((a) => {
      const b = this.button(a, v, you, a === ranged ? picker : null);
      if (a === ranged) rangedButton.el = b;
      return b;
    });
    wrap.append(h("div", { class: `buttons n${buttons.length}` }, buttons));
    this.paintStatus(status, wrap);
    return wrap;
  }

  picker(a, v, onChange) {
    const hv = v.hand;
    const level = hv?.level ?? 0;
    const quick = [{ key: "min", label: t("amount.min"), value: a.min }];
    quick.push({ key: "double", label: t("amount.double"), value: Math.max(2 * level, 2 * a.min),
      optional: true });
    if (a.type === "raise" && hv?.pot) quick.push({ key: "pot", label: t("amount.pot"), value: hv.pot, optional: true });
    quick.push({ key: "max", label: t("amount.max"), value: a.max });
    const chosen = this.amounts.get(a.type);
    return amountPicker({ min: a.min, max: a.max, value: chosen ?? a.min, quick, name: a.type,
      label: a.type === "blind" ? t("amount.blind") : t("amount.raise"),
      onChange: (value, ok) => {
        if (ok) this.amounts.set(a.type, value);
        onChange(value, ok);
      } });
  }

  button(a, v, you, picker) {
    const me = this.mySeat(v);
    const hv = v.hand;
    const fixed = a.amount ?? (a.min !== undefined && a.min === a.max ? a.min : undefined);
    const owe = Math.max(0, (hv?.level ?? 0) - (me?.put_in ?? 0));
    const amount = picker ? picker.value : fixed;
    const label = {
      look: () => [t("act.look")],
      pass: () => [t("act.pass")],
      fold: () => [t("act.fold")],
      sit_in: () => [t("act.sit_in")],
      skip_svara: () => [t("act.skip")],
      join_svara: () => tNodes("act.join", { chips: h("span", { class: "amt" }, num(fixed ?? 0)) }),
      call: () => tNodes("act.call", { chips: h("span", { class: "amt" }, num(a.amount ?? owe)) }),
      blind: () => tNodes("act.blind", { chips: h("span", { class: "amt" }, num(amount ?? 0)) }),
      raise: () => tNodes((hv?.level ?? 0) === 0 ? "act.bet" : "act.raise",
        { chips: h("span", { class: "amt" }, num(amount ?? 0)) }),
    }[a.type]?.() || [a.type];
    const kind = QUIET.has(a.type) ? "ghost" : a.type === "look" ? "secondary" : "primary";
    const pendingHere = this.pending && this.pending.type === a.type;
    return h("button", { type: "button", class: `act ${kind}${pendingHere ? " pending" : ""}`,
      dataset: { action: a.type }, disabled: Boolean(this.pending) || (picker ? !picker.valid() : false),
      onclick: () => {
        const value = a.type === "blind" || a.type === "raise" ? (picker ? picker.value : fixed) : undefined;
        this.act(a.type, value);
      } }, label);
  }

  /** The line above the buttons: whose turn and the clock, or an action waiting to go. */
  paintStatus(status, wrap) {
    const v = this.view;
    const hv = v.hand;
    status.replaceChildren();
    status.className = "bar-status";
    if (this.pending) {
      const offline = connection.state !== "live" || this.pending.waiting;
      status.classList.add("waiting");
      status.append(offline ? t("bar.will_send") : t("bar.sending"));
      return;
    }
    // (repainted when the connection changes: the waiting line must survive that too)
    const legal = (v.you?.legal || []).filter((a) => a.type !== "look");
    const turnSeat = hv && hv.phase !== "settled" ? hv.turn : null;
    if (!legal.length && turnSeat !== null && turnSeat !== undefined) {
      status.append(...tNodes("bar.waiting_for", { name: who(seatNames(v)[turnSeat] ?? "") }));
    } else if (!legal.length) {
      status.append(hv && hv.phase === "svara_join" ? t("bar.waiting_svara") : t("bar.waiting_hand"));
    } else if (hv?.phase === "svara_join" && legal.some((a) => a.type === "join_svara")) {
      status.append(t("bar.svara_choice"));
    }
    wrap?.classList.toggle("has-status", Boolean(status.textContent));
  }

  /** Repaint the bar's status line and buttons' enabled state (connection changes). */
  paintBar() {
    const bar = this.root.querySelector(".action-bar");
    if (bar && this.pending) bar.dataset.pending = this.pending.type;
    else if (bar) delete bar.dataset.pending;
    const status = this.root.querySelector("#bar-status");
    if (status) this.paintStatus(status, status.parentElement);
    for (const b of this.root.querySelectorAll(".action-bar button.act")) {
      if (this.pending) b.disabled = true;
    }
  }

  sitDown(v) {
    const s = v.settings || {};
    const full = v.seats.length >= (s.max_seats || 10);
    if (full) return h("p", { class: "bar-status" }, t("bar.full"));
    const low = s.min_buy_in ?? 10 * s.ante;
    const balance = this.app.me?.balance ?? 0;
    const high = Math.min(s.max_buy_in ?? 100 * s.ante, balance);
    return h("div", { class: "bar-actions" },
      h("p", { class: "bar-status" }, t("bar.watching")),
      buyInForm({ low, high, balance, me: this.app.me, submit: async (amount) => {
        this.view = await this.app.api.seat(this.tableId, amount);
        this.app.me = await this.app.api.me().catch(() => this.app.me);
        this.render();
      } }));
  }

  /** Out of chips at the table: buy in again (bounded by the wallet), or leave. */
  rebuy(v, me) {
    const s = v.settings || {};
    const low = s.min_buy_in ?? 10 * s.ante;
    const balance = this.app.me?.balance ?? 0;
    const high = Math.min(s.max_buy_in ?? 100 * s.ante, balance + me.stack);
    if (!this.app.me) this.app.api.me().then((m) => { this.app.me = m; this.render(); }, () => {});
    return h("div", { class: "bar-actions rebuy", id: "rebuy" },
      buyInForm({ low, high, balance: balance + me.stack, me: this.app.me,
        label: t("buyin.again"), submit: async (amount) => {
          this.rebuying = true;
          try {
            this.show(await this.app.api.rebuy(this.tableId, amount));
          } finally {
            this.rebuying = false;
          }
          this.app.me = await this.app.api.me().catch(() => this.app.me);
          this.render();
        } }),
      high < low ? h("button", { type: "button", class: "ghost", dataset: { action: "leave" },
        onclick: () => this.leave() }, t("table.leave")) : null);
  }

  // --- doing things --------------------------------------------------------------------------

  act(type, amount) {
    if (this.pending) return;
    this.pending = { id: newId(), type, amount, waiting: false, sent: 0 };
    this.render();
    this.send();
  }

  /** Send the pending action; a network failure keeps it for `resend`. */
  async send() {
    const action = this.pending;
    if (!action || action.inFlight) return;
    action.inFlight = true;
    action.sent += 1;
    try {
      await this.app.api.act(this.tableId, action);
      this.pending = null;
      this.app.haptic("tap");
    } catch (err) {
      if (err instanceof ApiError && err.code === "network") {
        action.waiting = true; // the same id goes again when the connection is back
        action.inFlight = false;
        clearTimeout(this.retryTimer);
        if (navigator.onLine) this.retryTimer = setTimeout(() => this.resend(), 1500);
        this.paintBar();
        return;
      }
      this.pending = null;
      toast(errorText(err));
      play("error");
      this.app.haptic("error");
    }
    action.inFlight = false;
    this.render();
    await this.refresh();
  }

  /** The connection is back: send what was waiting, with its own id. */
  resend() {
    if (this.pending && this.pending.waiting && navigator.onLine) this.send();
  }

  /** Leaving mid-hand folds it: that takes a second tap within a few seconds. */
  async leave() {
    const me = this.mySeat();
    const hv = this.view.hand;
    const playing = hv && hv.phase !== "settled" && me && me.in_hand;
    if (playing && !this.leaveArmed) {
      this.leaveArmed = true; // survives re-renders until it times out
      this.render();
      setTimeout(() => { this.leaveArmed = false; if (this.view) this.render(); }, 4000);
      return;
    }
    this.leaveArmed = false;
    try {
      this.view = await this.app.api.leave(this.tableId);
      this.app.me = await this.app.api.me().catch(() => this.app.me);
      this.render();
      toast(t("table.left"), "info");
    } catch (err) {
      toast(errorText(err));
    }
  }

  tick() {
    // Event times are precise; the HTTP Date header (whole seconds) covers the time before.
    const now = Date.now() / 1000 - (this.skew ?? this.app.api.clockAhead ?? 0);
    for (const el of this.root.querySelectorAll(".clock")) {
      const deadline = Number(el.dataset.deadline);
      if (!deadline) { el.textContent = ""; continue; }
      const left = Math.max(0, Math.ceil(deadline - now));
      el.textContent = seconds(left);
      el.dataset.left = left;
      el.classList.toggle("urgent", left <= 5 && !el.closest(".explain")); // turns, not pauses
    }
  }
}
