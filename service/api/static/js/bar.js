// The action bar fixed at the bottom of the table screen: your cards, your clock, exactly the
// actions the server's `legal` list allows (amounts bounded by it), the line saying whose turn
// it is or that an action waits to be sent, and for a spectator or a busted player the buy-in.
//
// Drawn from the table screen `s` (table.js): its view, its app, `s.outbox.pending` (the
// action out, outbox.js), `s.amounts` (the amount chosen per action this hand), and its
// `act`, `leave`, `show` and `render`.
import { card, cardBack } from "./cards.js";
import { amountPicker } from "./controls.js";
import { h, who } from "./dom.js";
import { num, t, tNodes } from "./i18n.js";
import { buyInForm } from "./lobby.js";
import { connection } from "./net.js";
import { myNotice, seatNames } from "./panels.js";
import { tourneyBarNote } from "./tourneytable.js";

const ORDER = ["sit_in", "join_svara", "skip_svara", "fold", "pass", "call", "blind", "raise", "look"];
const QUIET = new Set(["fold", "pass", "skip_svara"]); // the buttons that give up something

/** The viewer's seat in `v`, or null for a spectator. */
export function mySeat(v) {
  return v.seats.find((s) => s.seat === v.you?.seat) || null;
}

/** Out of chips here: below one ante, and not in a hand being played. */
function busted(v) {
  const me = mySeat(v);
  if (!me) return false;
  const playing = v.hand && v.hand.phase !== "settled" && me.in_hand;
  return me.stack < (v.settings?.ante ?? 1) && !playing;
}

/** The bar for view `v` (`me`: the viewer's seat). */
export function actionBar(s, v, me) {
  const hv = v.hand;
  const you = v.you || {};
  const content = [];
  if (!me && s.rebuying) {
    // buying in again stands up and sits down: not a spectator for that moment
    content.push(h("p", { class: "bar-status waiting" }, t("bar.sending")));
  } else if (!me) {
    content.push(v.tournament ? tourneyBarNote(v, "watching") : sitDown(s, v));
  } else {
    const out = busted(v);
    if (!out) content.push(myRow(s, v, me, you));
    content.push(myNotice(v, { busted: out }));
    if (out) content.push(v.tournament ? tourneyBarNote(v, "out") : rebuy(s, v, me));
    else content.push(actions(s, v, you));
  }
  const pending = s.outbox.pending;
  const myTurn = me && hv && hv.phase !== "settled" && hv.turn === me.seat;
  return h("div", { class: `action-bar${myTurn ? " my-turn" : ""}`, id: "action-bar",
    dataset: pending ? { pending: pending.type } : null }, content);
}

function myRow(s, v, me, you) {
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
    look ? button(s, look, v, null) : null,
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

function actions(s, v, you) {
  // (Look sits beside the cards, in the row above)
  const legal = [...(you.legal || [])].filter((a) => a.type !== "look")
    .sort((a, b) => ORDER.indexOf(a.type) - ORDER.indexOf(b.type));
  const status = h("p", { class: "bar-status", id: "bar-status" });
  const wrap = h("div", { class: "bar-actions" }, status);
  if (!legal.length) {
    paintStatus(s, status, wrap); // waiting: for another player, or to send ours
    return wrap;
  }
  const ranged = legal.find((a) => (a.type === "raise" || a.type === "blind")
    && a.amount === undefined && a.min !== a.max);
  let chooser = null;
  const rangedButton = { el: null };
  if (ranged) {
    chooser = picker(s, ranged, v, (value, ok) => {
      if (!rangedButton.el) return;
      rangedButton.el.disabled = !ok || Boolean(s.outbox.pending);
      rangedButton.el.querySelector(".amt").textContent = num(value);
    });
    wrap.append(chooser.el);
  }
  const buttons = legal.map((a) => {
    const b = button(s, a, v, a === ranged ? chooser : null);
    if (a === ranged) rangedButton.el = b;
    return b;
  });
  wrap.append(h("div", { class: `buttons n${buttons.length}` }, buttons));
  paintStatus(s, status, wrap);
  return wrap;
}

function picker(s, a, v, onChange) {
  const hv = v.hand;
  const level = hv?.level ?? 0;
  const quick = [{ key: "min", label: t("amount.min"), value: a.min }];
  quick.push({ key: "double", label: t("amount.double"), value: Math.max(2 * level, 2 * a.min),
    optional: true });
  if (a.type === "raise" && hv?.pot) quick.push({ key: "pot", label: t("amount.pot"), value: hv.pot, optional: true });
  quick.push({ key: "max", label: t("amount.max"), value: a.max });
  const chosen = s.amounts.get(a.type);
  return amountPicker({ min: a.min, max: a.max, value: chosen ?? a.min, quick, name: a.type,
    label: a.type === "blind" ? t("amount.blind") : t("amount.raise"),
    onChange: (value, ok) => {
      if (ok) s.amounts.set(a.type, value);
      onChange(value, ok);
    } });
}

function button(s, a, v, chooser) {
  const me = mySeat(v);
  const hv = v.hand;
  const fixed = a.amount ?? (a.min !== undefined && a.min === a.max ? a.min : undefined);
  const owe = Math.max(0, (hv?.level ?? 0) - (me?.put_in ?? 0));
  const amount = chooser ? chooser.value : fixed;
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
  const pending = s.outbox.pending;
  const pendingHere = pending && pending.type === a.type;
  return h("button", { type: "button", class: `act ${kind}${pendingHere ? " pending" : ""}`,
    dataset: { action: a.type }, disabled: Boolean(pending) || (chooser ? !chooser.valid() : false),
    onclick: () => {
      const value = a.type === "blind" || a.type === "raise" ? (chooser ? chooser.value : fixed) : undefined;
      s.act(a.type, value);
    } }, label);
}

/** The line above the buttons: whose turn and the clock, or an action waiting to go. */
function paintStatus(s, status, wrap) {
  const v = s.view;
  const hv = v.hand;
  const pending = s.outbox.pending;
  status.replaceChildren();
  status.className = "bar-status";
  if (pending) {
    const offline = connection.state !== "live" || pending.waiting;
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
export function paintBar(s) {
  const pending = s.outbox.pending;
  const bar = s.root.querySelector(".action-bar");
  if (bar && pending) bar.dataset.pending = pending.type;
  else if (bar) delete bar.dataset.pending;
  const status = s.root.querySelector("#bar-status");
  if (status) paintStatus(s, status, status.parentElement);
  for (const b of s.root.querySelectorAll(".action-bar button.act")) {
    if (pending) b.disabled = true;
  }
}

/** The page leaves room at its bottom for the fixed action bar, whatever its height; the
 *  bar is never taller than what the header leaves (table.css). */
export function sizeBar(root) {
  const bar = root.querySelector(".action-bar");
  const space = root.querySelector(".bar-space");
  const header = document.querySelector("header.bar");
  if (bar && header) bar.style.setProperty("--head-h", `${header.offsetHeight}px`);
  if (bar && space) space.style.height = `${bar.offsetHeight + 8}px`;
}

function sitDown(s, v) {
  const st = v.settings || {};
  const full = v.seats.length >= (st.max_seats || 10);
  if (full) return h("p", { class: "bar-status" }, t("bar.full"));
  const low = st.min_buy_in ?? 10 * st.ante;
  const balance = s.app.me?.balance ?? 0;
  const high = Math.min(st.max_buy_in ?? 100 * st.ante, balance);
  return h("div", { class: "bar-actions" },
    h("p", { class: "bar-status" }, t("bar.watching")),
    buyInForm({ low, high, balance, me: s.app.me, now: s.app.api.serverNow(),
      submit: async (amount) => {
        s.view = await s.app.api.seat(s.tableId, amount, s.invite);
        s.app.me = await s.app.api.me().catch(() => s.app.me);
        s.render();
        s.app.seated();
      } }));
}

/** Out of chips at the table: buy in again (bounded by the wallet), or leave. */
function rebuy(s, v, me) {
  const st = v.settings || {};
  const low = st.min_buy_in ?? 10 * st.ante;
  const balance = s.app.me?.balance ?? 0;
  const high = Math.min(st.max_buy_in ?? 100 * st.ante, balance + me.stack);
  if (!s.app.me) s.app.api.me().then((m) => { s.app.me = m; s.render(); }, () => {});
  return h("div", { class: "bar-actions rebuy", id: "rebuy" },
    buyInForm({ low, high, balance: balance + me.stack, me: s.app.me,
      now: s.app.api.serverNow(), label: t("buyin.again"), submit: async (amount) => {
        s.rebuying = true;
        try {
          s.show(await s.app.api.rebuy(s.tableId, amount));
        } finally {
          s.rebuying = false;
        }
        s.app.me = await s.app.api.me().catch(() => s.app.me);
        s.render();
      } }),
    high < low ? h("button", { type: "button", class: "ghost", dataset: { action: "leave" },
      onclick: () => s.leave() }, t("table.leave")) : null);
}
