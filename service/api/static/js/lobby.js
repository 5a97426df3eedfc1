// The lobby: your balance, the open tables (open or join with a buy-in), create a table.
import { ApiError } from "./api.js";
import { clamp, h, replace, toast } from "./dom.js";

const PHASES = { null: "waiting", blind: "blind bets", betting: "betting",
  svara_join: "svara", settled: "between hands" };

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

export class Lobby {
  constructor(app) {
    this.app = app;
    this.root = h("section", { class: "lobby" });
    this.timer = 0;
    this.form = null;
  }

  mount(screen) {
    replace(screen, this.root);
    this.refresh();
    this.timer = setInterval(() => {
      // Never redraw under someone's fingers: skip while they type in a lobby field.
      const typing = this.root.contains(document.activeElement)
        && ["INPUT", "SELECT"].includes(document.activeElement.tagName);
      if (!document.hidden && !typing) this.refresh();
    }, 8000);
  }

  unmount() {
    clearInterval(this.timer);
  }

  async refresh() {
    let me, list;
    try {
      [me, list] = await Promise.all([this.app.api.me(), this.app.api.tables()]);
    } catch (err) {
      toast(err.message);
      return;
    }
    this.app.setUser(me.user);
    this.form = this.form || this.createForm(me.balance); // built once: keeps what was typed
    replace(this.root, this.balance(me), this.tableList(list.tables, new Set(me.tables)),
      this.form);
  }

  balance(me) {
    return h("div", { class: "panel balance" },
      h("div", {}, h("small", { class: "muted" }, "Playing as"), h("strong", {}, me.user.name)),
      h("div", { class: "right" }, h("small", { class: "muted" }, "Chips"),
        h("strong", { id: "balance" }, me.balance.toLocaleString())));
  }

  tableList(tables, mine) {
    const ordered = [...tables].sort((a, b) => mine.has(b.table_id) - mine.has(a.table_id));
    const rows = ordered.map((t) => this.tableRow(t, mine.has(t.table_id)));
    return h("div", { class: "panel" },
      h("h2", {}, "Tables"),
      rows.length ? h("ul", { class: "tables" }, rows)
        : h("p", { class: "muted" }, "No tables yet — create one below."));
  }

  tableRow(t, seated) {
    // The listing may not carry a table's own buy-in bounds: suggest the default (10 antes)
    // and let the server judge, rather than block a buy-in the table would accept.
    const suggested = t.min_buy_in ?? 10 * t.ante;
    const buyIn = number("buy_in", suggested, t.min_buy_in ?? 1, t.max_buy_in,
      { "aria-label": "Buy-in" });
    const full = t.seated >= t.max_seats;
    return h("li", { class: "table-row", dataset: { table: t.table_id } },
      h("div", { class: "grow" },
        h("strong", {}, `Ante ${t.ante}`),
        h("span", { class: "muted" }, ` · ${t.seated}/${t.max_seats} seated · `
          + `${PHASES[t.phase] || t.phase || "waiting"}`),
        seated && h("span", { class: "badge" }, "you're in")),
      seated
        ? h("button", { type: "button", onclick: () => this.app.openTable(t.table_id) }, "Open")
        : h("form", { class: "join", onsubmit: (e) => this.join(e, t.table_id, buyIn) },
          !full && buyIn,
          h("button", { type: "submit", disabled: full }, full ? "Full" : "Join"),
          h("button", { type: "button", class: "ghost",
            onclick: () => this.app.openTable(t.table_id) }, "Watch")));
  }

  async join(event, tableId, input) {
    event.preventDefault();
    const submit = event.currentTarget.querySelector("button[type=submit]");
    if (submit.disabled) return;
    submit.disabled = true;
    try {
      await this.app.api.seat(tableId, Number(input.value));
      this.app.openTable(tableId);
    } catch (err) {
      toast(err.message);
      submit.disabled = false;
    }
  }

  createForm(balance) {
    const form = h("form", { class: "panel create", onsubmit: (e) => this.create(e, form) },
      h("h2", {}, "New table"),
      h("div", { class: "grid" },
        field("Ante", number("ante", 10, 1, 100000)),
        field("Seats", number("max_seats", 6, 2, 10)),
        field("Practice bots", number("practice_bots", 2, 0, 9), "computer players"),
        field("Your buy-in", number("buy_in", Math.min(200, balance), 1, 10 ** 9),
          "10–100 antes"),
      ),
      h("details", {},
        h("summary", {}, "More options"),
        h("div", { class: "grid" },
          field("Seconds per turn", number("turn_seconds", 30, 5, 600)),
          field("Bet unit", number("bet_unit", "", 1, 100000, { required: false,
            placeholder: "= ante" })),
          field("Raises per player", number("max_raises", 3, 1, 20)),
          field("Blinds", select("blind_raise", [["double", "exactly double"],
            ["at_least_double", "at least double"]])),
          field("Next dealer", select("dealer", [["winner", "the winner"],
            ["rotate", "clockwise"]])),
          field("On a tie", select("svara", [["play", "play a svara"], ["split", "split the pot"]])),
          field("Joker + pair", select("joker_pair", [["sum", "11 + pair"],
            ["substitute", "joker completes three"]])),
          field("Three sevens", select("natural_777", [["34", "34"], ["33", "33"], ["30", "30"]])),
        )),
      h("button", { type: "submit", class: "primary" }, "Create and sit down"));
    return form;
  }

  async create(event, form) {
    event.preventDefault();
    const submit = form.querySelector("button[type=submit]");
    if (submit.disabled) return;
    submit.disabled = true; // one table per tap, however impatient the tapping
    try {
      await this.createTable(form);
    } finally {
      submit.disabled = false;
    }
  }

  async createTable(form) {
    const data = new FormData(form);
    const settings = {};
    for (const [key, raw] of data.entries()) {
      if (key === "buy_in" || raw === "") continue;
      settings[key] = /^-?\d+$/.test(raw) ? Number(raw) : raw;
    }
    const ante = settings.ante;
    const buyIn = clamp(Number(data.get("buy_in")), 10 * ante, 100 * ante);
    try {
      const { table_id: tableId } = await this.app.api.createTable(settings);
      try {
        await this.app.api.seat(tableId, buyIn);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        toast(`Table created, but you could not sit down: ${err.message}`);
      }
      this.app.openTable(tableId);
    } catch (err) {
      toast(err.message);
    }
  }
}
