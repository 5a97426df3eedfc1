// The table screen's life: the view fetched and kept current from the live feed, the last
// result, the clocks ticking, the screen drawn from these, and leaving.
//
// The server's view is the truth: every live event brings the caller's view at its version.
// Events also drive what a view cannot say: the last action in a line, chips flying to the
// pot, the deal, sounds and haptics (effects.js), and the result of a hand as it settles
// (handlog.js). The action bar is bar.js; actions pressed go through the outbox (outbox.js),
// which sends each exactly once however the network behaves; the felt and the panels around
// it are drawn by tablepage.js.
import { h, replace, toast } from "./dom.js";
import { actionBar, mySeat, paintBar, sizeBar } from "./bar.js";
import { TableChat } from "./chat.js";
import { feel } from "./effects.js";
import { errorText } from "./errors.js";
import { logEvent, partialLog, settledResult, startLog } from "./handlog.js";
import { seconds, t } from "./i18n.js";
import { stakes, tableName } from "./lobby.js";
import { connection } from "./net.js";
import { Outbox } from "./outbox.js";
import { eventLine, seatNames } from "./panels.js";
import { keepEvent, keepView } from "./pins.js";
import { clientSeed, delivered, owed } from "./seed.js";
import { TableSocket } from "./socket.js";
import { play } from "./sound.js";
import { inviteSheet } from "./invite.js";
import { infoSheet, tablePage } from "./tablepage.js";
import { closingConfirmation } from "./telegram.js";
import { tourneyStrip, tourneySubtitle } from "./tourneytable.js";

const RECENT = 3; // seconds: older events (a catch-up) make no sound and fly no chips

export class TableScreen {
  constructor(app, tableId, { invite = null } = {}) {
    this.app = app;
    this.tableId = tableId;
    this.invite = invite; // a private table's, from its link: to watch it and sit down
    this.view = null;
    this.result = null; // the last settled hand, in GET /hands's shape
    this.log = null; // what the events said of the hand being played: {number, showdowns, ...}
    this.line = null; // the last thing that happened, in words
    this.outbox = new Outbox(app.api, tableId, {
      onWaiting: () => this.paintBar(),
      onDone: () => this.acted(),
      onRefused: (err) => this.refused(err),
    });
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
    this.chat = new TableChat(this);
    // a seat (a person's, not a practice bot's) opens that player's profile
    this.root.addEventListener("click", (e) => {
      const el = e.target.closest?.(".felt .seat[data-seat]");
      const seat = el && this.view?.seats.find((x) => String(x.seat) === el.dataset.seat);
      if (seat && seat.user_id > 0 && seat.user_id !== this.app.me?.user?.id) this.app.openProfile(seat.user_id);
    });
  }

  async mount(screen) {
    replace(screen, this.root);
    document.body.append(this.fx);
    replace(this.root, h("div", { class: "loading" }, h("span"), h("span"), h("span")));
    try {
      this.view = this.keepInvite(await this.app.api.view(this.tableId, this.invite));
    } catch (err) {
      if (err.status === 404 && this.invite) {
        // A link whose invite is wrong or was replaced: back to the lobby, saying why.
        this.app.toLobby();
        toast(err.code === "invite_revoked" ? t("invite.revoked") : t("invite.invalid"));
        return;
      }
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
      invite: this.invite,
      onEvent: (event, view) => this.onEvent(event, view),
      onLive: () => this.outbox.resend(),
      onFatal: (why) => this.socketRefused(why),
      onChat: (message) => this.chat.receive(message),
      onAway: (frame) => this.chat.awayFrame(frame),
    }).start();
    this.chat.load();
    this.unlisten = connection.listen((state) => {
      if (state !== "offline") this.outbox.resend();
      this.paintBar();
    });
    this.clock = setInterval(() => this.tick(), 250);
    if (this.app.inviteFor === this.tableId) {
      this.app.inviteFor = null;
      this.openInvite(); // a private table just made: its link first
    }
  }

  /** Its creator's view of a private table carries the current invite: what the host's
   *  link (and the sheet) carries. */
  keepInvite(view) {
    if (view?.invite) this.invite = view.invite;
    return view;
  }

  unmount() {
    this.gone = true;
    clearInterval(this.clock);
    clearTimeout(this.viewTimer);
    this.outbox.stop();
    if (this.socket) this.socket.stop();
    this.chat.stop();
    if (this.unlisten) this.unlisten();
    this.fx.remove();
    closingConfirmation(false);
  }

  /** Back from the background: fetch the view now (the socket catches up meanwhile). */
  resume() {
    this.socket?.setAway(false);
    this.socket?.wake();
    this.refresh();
  }

  /** Minimised (Telegram's "deactivated", the tab hidden): the others see us away. */
  pause() {
    this.socket?.setAway(true);
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
    this.record(event, event.data || {}, names);
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
    if (recent) {
      feel({ root: this.root, fx: this.fx, view: this.view, haptic: (k) => this.app.haptic(k) },
        event, before);
    }
  }

  /** Keep what the events say of the hand, for its result (handlog.js). The history
   *  endpoint builds the same summary, but the result is shown the moment the hand settles,
   *  and the history does not say what each seat put in (a winner's net gain). */
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
          this.show(this.keepInvite(await this.app.api.view(this.tableId, this.invite)));
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

  // --- drawing -------------------------------------------------------------------------------

  mySeat(v = this.view) {
    return mySeat(v);
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
    this.app.setTitle(v.tournament ? t("tourney.table_badge")
      : tableName({ name: v.name, host: v.host, practice: v.seats.some((s) => s.user_id < 0) }),
    v.tournament ? tourneySubtitle(v) : stakes({ ante: v.settings?.ante, bet_unit: v.settings?.bet_unit }));
    const hv = v.hand;
    const seat = v.you?.seat ?? null;
    // known when this page saw the whole hand, or its first deal's chips in a view
    const stake = this.result?.stakes?.[seat]
      ?? (this.stakes?.number === this.result?.number ? this.stakes?.paid[seat] : undefined);
    replace(this.root, tourneyStrip(v, this.app), ...tablePage(v, {
      me, result: this.result, line: this.line, stake, leaveArmed: this.leaveArmed,
      dealKey: hv && this.dealSeen.has(`${hv.number}:${hv.deal}`) ? `${hv.number}:${hv.deal}` : null,
      onInfo: () => this.openInfo(),
      onInvite: () => this.openInvite(),
      onLeave: () => this.leave(),
      onAudit: () => this.app.openAudit(this.tableId, this.result.number),
      onShare: () => this.app.shareHand(this.tableId, this.result.number),
      onReplay: () => this.app.openReplay(this.tableId, this.result.number, { from: "table" }),
      onHistory: () => this.app.openHistory(this.tableId),
    }), actionBar(this, v, me), this.sheet);
    closingConfirmation(Boolean(me && hv && hv.phase !== "settled" && me.in_hand));
    this.tick();
    if (focused) this.root.querySelector(`input[data-amount="${focused}"]`)?.focus();
    sizeBar(this.root);
    this.chat.paint();
  }

  /** The commitment behind the felt's info button: what it is and how to check it. */
  openInfo() {
    const hv = this.view.hand;
    if (!hv) return;
    const close = () => { this.sheet = null; this.render(); };
    this.sheet = infoSheet(hv, { close, onHistory: () => this.app.openHistory(this.tableId) });
    this.render();
  }

  /** "Invite friends": the table's link and card to share (its host may make a new link). */
  openInvite() {
    const close = () => { this.sheet = null; this.render(); };
    this.sheet = inviteSheet(this, { close });
    this.render();
  }

  paintBar() {
    paintBar(this);
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

  // --- doing things --------------------------------------------------------------------------

  act(type, amount) {
    if (!this.outbox.add(type, amount)) return;
    this.render();
    this.outbox.send();
  }

  async acted() {
    this.app.haptic("tap");
    this.render();
    await this.refresh();
  }

  async refused(err) {
    toast(errorText(err));
    play("error");
    this.app.haptic("error");
    this.render();
    await this.refresh();
  }

  /** Leaving mid-hand folds it: that takes a second tap within a few seconds. */
  async leave() {
    const me = this.mySeat();
    const hv = this.view.hand;
    const playing = hv && hv.phase !== "settled" && me && me.in_hand;
    // a tournament's leave forfeits the place: always asked twice
    if ((playing || this.view.tournament) && !this.leaveArmed) {
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
}
