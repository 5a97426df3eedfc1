// The lobby: your chips (and when free chips come if there are none), the tables by host and
// stakes (join with a buy-in bounded by your wallet, or watch), and a new table.
import { ApiError } from "./api.js";
import { playersLine } from "./avatars.js";
import { amountPicker } from "./controls.js";
import { clamp, h, refreshEvery, replace, toast, who } from "./dom.js";
import { errorText } from "./errors.js";
import { chips, fromNow, num, t, tNodes } from "./i18n.js";
import { lobbyTabs } from "./tabs.js";

const ANTES = [5, 10, 25, 50, 100];

function field(label, input, hint) {
  return h("label", { class: "field" }, h("span", {}, label), input, hint && h("small", {}, hint));
}

function number(name, value, min, max, extra = {}) {
  return h("input", { type: "number", name, value, min, max, step: 1, inputmode: "numeric",
    required: true, ...extra });
}

function select(name, options) {
  return h("select", { name }, options.map(([value, text]) => h("option", { value }, text)));
}

/** The name its host gave it, "Ana's table", "Practice table": what a table is called (never
 * its id). `number` tells apart the house's practice tables where the lobby lists more than one. */
export function tableName({ name, host, practice }, number = 0) {
  if (name) return [who(name)];
  if (host) return tNodes("table.of_host", { name: who(host) });
  if (practice && number) return [t("table.practice_n", { n: number })];
  return [practice ? t("table.practice") : t("table.open")];
}

export function stakes({ ante, bet_unit: unit }) {
  return unit && unit !== ante ? t("table.stakes_unit", { ante, unit }) : t("table.stakes", { ante });
}

/** Free chips for an empty wallet: when they come, or what stands in the way; `now` is the
 *  server's time (`api.serverNow()`), since `next_at` is one. */
export function topupNote(me, now) {
  if (!me || me.balance > 0 || !me.daily_topup) return null;
  const { amount, next_at: at } = me.daily_topup;
  if (me.tables.length) return t("wallet.topup_leave", { chips: chips(amount) });
  if (at <= now + 1) return t("wallet.topup_now", { chips: chips(amount) });
  return t("wallet.topup_at", { chips: chips(amount), when: fromNow(at, now) });
}

export class Lobby {
  constructor(app) {
    this.app = app;
    this.root = h("section", { class: "lobby" });
    this.timer = 0;
    this.gone = false; // unmounted: an answer still on its way changes nothing
    this.form = null;
    this.joining = null; // the table whose buy-in is open
    this.me = app.me;
  }

  mount(screen) {
    replace(screen, this.root);
    replace(this.root, lobbyTabs(this.app, "tables"), this.me && this.wallet(this.me));
    this.refresh();
    // never redrawn under someone's fingers (a buy-in being picked) nor mid-join
    this.timer = refreshEvery(this.root, 8000, () => this.joining, () => this.refresh());
  }

  unmount() {
    this.gone = true;
    clearInterval(this.timer);
  }

  resume() { this.refresh(); }

  async refresh() {
    let me, list;
    try {
      [me, list] = await Promise.all([this.app.api.me(), this.pagesOfTables()]);
    } catch (err) {
      if (!this.gone) toast(errorText(err));
      return;
    }
    if (this.gone) return;
    this.me = me;
    this.app.me = me;
    if (!this.form) this.form = this.createForm(me.balance); // built once: keeps what was typed
    else this.form.syncWallet(me.balance);
    replace(this.root, lobbyTabs(this.app, "tables"), this.wallet(me), this.tableList(list.tables, new Set(me.tables), list.next),
      this.form);
  }

  /** The lobby is paged by the server: as many pages as the player has asked to see so far
   * ("More tables" asks for one more), each following the `next` cursor of the one before. */
  async pagesOfTables() {
    const tables = [];
    let next = null;
    for (let page = 0; page < (this.pages || 1); page += 1) {
      const answer = await this.app.api.tables(next);
      tables.push(...(answer.tables || []));
      next = answer.next || null;
      if (!next) break;
    }
    return { tables, next };
  }

  async more() {
    this.pages = (this.pages || 1) + 1;
    await this.refresh();
  }

  wallet(me) {
    const note = topupNote(me, this.app.api.serverNow());
    return h("div", { class: "panel wallet" },
      h("div", { class: "wallet-main" },
        h("small", { class: "muted" }, t("wallet.your_chips")),
        h("strong", { id: "balance" }, num(me.balance))),
      h("div", { class: "wallet-who" }, h("small", { class: "muted" }, t("wallet.playing_as")),
        h("span", { class: "name" }, who(me.user.name))),
      note && h("p", { class: "topup", id: "topup" }, note),
      h("button", { type: "button", class: "link my-hands-link", id: "my-hands-link",
        dataset: { action: "myhands" }, onclick: () => this.app.openMyHands() }, t("myhands.open")));
  }

  tableList(tables, mine, next) {
    const ordered = [...tables].sort((a, b) => mine.has(b.table_id) - mine.has(a.table_id));
    // Hostless practice tables would all read "Practice table": number them when there are two.
    const house = ordered.filter((tb) => tb.practice && !tb.host);
    this.practiceNumbers = new Map(
      house.length > 1 ? house.map((tb, i) => [tb.table_id, i + 1]) : []);
    return h("div", { class: "panel" },
      h("h2", {}, t("lobby.tables")),
      ordered.length
        ? h("ul", { class: "tables" }, ordered.map((tb) => this.tableRow(tb, mine.has(tb.table_id))))
        : h("p", { class: "muted" }, t("lobby.no_tables")),
      next && h("button", { type: "button", class: "ghost more", dataset: { action: "more" },
        onclick: () => this.more() }, t("lobby.more")));
  }

  tableRow(tb, seated) {
    const full = tb.seated >= tb.max_seats;
    const phase = tb.phase && tb.phase !== "waiting" ? t("lobby.playing") : t("lobby.waiting");
    const row = h("li", { class: "table-row", dataset: { table: tb.table_id } },
      h("div", { class: "table-info" },
        h("strong", { class: "table-name" },
          tableName(tb, this.practiceNumbers?.get(tb.table_id) ?? 0)),
        h("div", { class: "muted" }, stakes(tb), " · ",
          t("lobby.seats_free", { free: tb.seats_free ?? Math.max(0, tb.max_seats - tb.seated),
            max: tb.max_seats }), " · ", phase),
        playersLine(tb.players),
        seated && h("span", { class: "badge mine" }, t("lobby.you_are_in"))),
      h("div", { class: "table-actions" },
        seated
          ? h("button", { type: "button", class: "primary", dataset: { action: "open" },
            onclick: () => this.app.openTable(tb.table_id) }, t("lobby.open"))
          : [h("button", { type: "button", class: full ? "" : "primary", disabled: full,
            dataset: { action: "join" }, onclick: () => this.toggleJoin(tb, row) },
          full ? t("lobby.full") : t("lobby.join")),
          h("button", { type: "button", class: "ghost", dataset: { action: "watch" },
            onclick: () => this.app.openTable(tb.table_id) }, t("lobby.watch"))]));
    return row;
  }

  /** Join opens the buy-in under the row: bounded by the table and by the wallet. */
  toggleJoin(tb, row) {
    const open = row.querySelector(".buyin");
    if (open) {
      open.remove();
      this.joining = null;
      return;
    }
    this.joining = tb.table_id;
    const low = tb.min_buy_in ?? 10 * tb.ante;
    const high = Math.min(tb.max_buy_in ?? 100 * tb.ante, this.me.balance);
    row.append(buyInForm({ low, high, balance: this.me.balance, me: this.me,
      now: this.app.api.serverNow(),
      submit: async (amount) => {
        await this.app.api.seat(tb.table_id, amount);
        this.joining = null;
        this.app.seated();
        this.app.openTable(tb.table_id);
      } }));
  }

  createForm(balance) {
    const ante = number("ante", 10, 1, 100000, { "aria-label": t("create.ante") });
    const buyIn = h("div", { class: "create-buyin" });
    let picker = null;
    let wallet = balance;
    const submit = h("button", { type: "submit", class: "primary", dataset: { action: "create" } },
      t("create.submit"));
    const shortNote = h("p", { class: "note", hidden: true });
    const paintBuyIn = () => {
      const a = Math.max(1, Math.round(Number(ante.value) || 1));
      const low = 10 * a;
      const high = Math.min(100 * a, wallet);
      const short = high < low;
      shortNote.hidden = !short;
      shortNote.textContent = short ? t("create.short", { chips: chips(low) }) : "";
      submit.disabled = short;
      const keep = picker ? picker.value : Math.min(20 * a, high);
      picker = short ? null : amountPicker({ min: low, max: high, value: clamp(keep, low, high),
        name: "buy_in", label: t("create.buy_in"),
        quick: [{ key: "min", label: t("amount.min"), value: low },
          { key: "max", label: t("amount.max"), value: high }] });
      replace(buyIn, picker ? field(t("create.buy_in"), picker.el,
        t("create.buy_in_hint", { low: 10, high: 100 })) : null);
    };
    const quickAntes = h("div", { class: "quick-row antes" }, ANTES.map((v) => h("button", {
      type: "button", class: "quick", dataset: { ante: v },
      onclick: () => { ante.value = v; paintBuyIn(); } }, num(v))));
    ante.addEventListener("input", paintBuyIn);
    const nameError = h("p", { class: "field-error", id: "name-error", role: "alert", hidden: true });
    const name = h("input", { name: "table_name", maxlength: 64, autocomplete: "off", dir: "auto",
      placeholder: t("create.name_placeholder"), "aria-describedby": "name-error",
      oninput: () => { nameError.hidden = true; } });
    const friends = h("label", { class: "toggle", dataset: { field: "private" } },
      h("input", { type: "checkbox", name: "private", role: "switch" }),
      h("span", { class: "toggle-text" }, h("strong", {}, t("create.private")),
        h("small", {}, t("create.private_hint"))));
    const form = h("form", { class: "panel create", onsubmit: (e) => this.create(e, form, () => picker) },
      h("h2", {}, t("create.title")),
      field(t("create.name"), name, t("create.name_hint")), nameError,
      field(t("create.ante"), h("div", { class: "ante-pick" }, quickAntes, ante), t("create.ante_hint")),
      h("div", { class: "grid" },
        field(t("create.seats"), number("max_seats", 6, 2, 10)),
        field(t("create.bots"), number("practice_bots", 2, 0, 9), t("create.bots_hint"))),
      buyIn, shortNote, friends,
      h("details", {},
        h("summary", {}, t("create.more")),
        h("div", { class: "grid" },
          field(t("create.turn_seconds"), number("turn_seconds", 30, 5, 600)),
          field(t("create.bet_unit"), number("bet_unit", "", 1, 100000, { required: false,
            placeholder: t("create.bet_unit_same") })),
          field(t("create.max_raises"), number("max_raises", 3, 1, 20)),
          field(t("create.blinds"), select("blind_raise", [["double", t("create.blinds_double")],
            ["at_least_double", t("create.blinds_at_least")]])),
          field(t("create.dealer"), select("dealer", [["winner", t("create.dealer_winner")],
            ["rotate", t("create.dealer_rotate")]])),
          field(t("create.tie"), select("svara", [["play", t("create.tie_svara")],
            ["split", t("create.tie_split")]])),
          field(t("create.joker_pair"), select("joker_pair", [["sum", t("create.joker_sum")],
            ["substitute", t("create.joker_substitute")]])),
          field(t("create.sevens"), select("natural_777", [["34", num(34)], ["33", num(33)],
            ["30", num(30)]])),
        )),
      submit);
    form.nameError = (message) => {
      nameError.textContent = message;
      nameError.hidden = false;
      name.focus();
    };
    form.syncWallet = (n) => { if (n !== wallet) { wallet = n; paintBuyIn(); } };
    paintBuyIn();
    return form;
  }

  async create(event, form, picker) {
    event.preventDefault();
    const submit = form.querySelector("button[type=submit]");
    if (submit.disabled || !picker() || !picker().valid()) return;
    submit.disabled = true; // one table per tap, however impatient the tapping
    try {
      const data = new FormData(form);
      const settings = {};
      for (const [key, raw] of data.entries()) {
        if (raw === "" || ["buy_in", "table_name", "private"].includes(key)) continue;
        settings[key] = /^-?\d+$/.test(raw) ? Number(raw) : raw;
      }
      // The server counts characters (code points) after trimming, as Array.from does.
      const name = String(data.get("table_name") || "").trim();
      if (Array.from(name).length > 32) {
        form.nameError(t("create.name_long"));
        return;
      }
      if (name) settings.name = name;
      if (data.get("private")) settings.private = true;
      const { table_id: tableId } = await this.app.api.createTable(settings);
      try {
        await this.app.api.seat(tableId, picker().value);
        this.app.seated();
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        toast(errorText(err));
      }
      this.app.openTable(tableId, { invite: Boolean(settings.private) });
    } catch (err) {
      if (err.code === "invalid_name") form.nameError(errorText(err));
      toast(errorText(err));
    } finally {
      submit.disabled = false;
    }
  }
}

/** A buy-in (sitting down, or again after losing the stack): bounded by [low, high] where
 *  high already counts the wallet; too little in the wallet says so, with the top-up. */
export function buyInForm({ low, high, balance, me, now, submit, label = t("buyin.sit_down") }) {
  if (high < low) {
    return h("div", { class: "buyin short" },
      h("p", {}, t("buyin.short", { need: chips(low), have: chips(balance) })),
      topupNote(me, now) && h("p", { class: "topup" }, topupNote(me, now)));
  }
  const picker = amountPicker({ min: low, max: high, value: low, name: "buy_in",
    label: t("buyin.amount"),
    quick: [{ key: "min", label: t("amount.min"), value: low },
      { key: "max", label: t("amount.max"), value: high }] });
  const button = h("button", { type: "submit", class: "primary", dataset: { action: "seat" } }, label);
  return h("form", { class: "buyin", onsubmit: async (e) => {
    e.preventDefault();
    if (button.disabled || !picker.valid()) return;
    button.disabled = true;
    try {
      await submit(picker.value);
    } catch (err) {
      toast(errorText(err));
    } finally {
      button.disabled = false;
    }
  } }, h("small", { class: "muted" }, t("buyin.range", { low, high })), picker.el, button);
}
