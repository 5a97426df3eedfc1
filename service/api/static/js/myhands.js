// My hands: every settled hand the player was dealt into, at every table (closed ones too),
// newest first, a page at a time (`GET /api/me/hands`, "Load more" follows its cursor).
// Each row: the table by its name (its view, asked once per table), the hand's number and
// time, the pot, what the player won or lost (net) and how it ended; a tap opens the hand.
import { h, replace, toast } from "./dom.js";
import { errorText } from "./errors.js";
import { language, num, t } from "./i18n.js";
import { stakes, tableName } from "./lobby.js";

// Tests shorten the page through window.svaraMyHandsPage (paging without 20 hands).
const PAGE = Number(window.svaraMyHandsPage) || 20;
const RESULTS = { won: "myhands.result.won", split: "myhands.result.split",
  lost: "myhands.result.lost", folded: "myhands.result.folded" };

function when(epochSeconds) {
  return new Intl.DateTimeFormat(language(), { day: "numeric", month: "short",
    hour: "numeric", minute: "2-digit" }).format(new Date(epochSeconds * 1000));
}

/** "+40", "−25", "0": the net of a hand, signed, in the language's digits. */
function net(won) {
  return new Intl.NumberFormat(language(), { signDisplay: "exceptZero" }).format(won);
}

export class MyHandsScreen {
  constructor(app) {
    this.app = app;
    this.root = h("section", { class: "my-hands" });
    this.hands = [];
    this.next = null;
    this.names = new Map(); // table id → a promise of its view (or null)
    this.gone = false;
  }

  async mount(screen) {
    replace(screen, this.root);
    this.app.setTitle(t("myhands.title"));
    replace(this.root, h("div", { class: "loading" }, h("span"), h("span"), h("span")));
    await this.load();
  }

  unmount() { this.gone = true; }

  /** The next page (the first when nothing is shown yet). */
  async load() {
    let page;
    try {
      page = await this.app.api.myHands(this.next, PAGE);
    } catch (err) {
      if (this.gone) return;
      if (this.hands.length) {
        toast(errorText(err)); // the rows stay; "Load more" may be tapped again
        await this.render();
      } else {
        replace(this.root, h("p", { class: "panel", id: "myhands-error" }, errorText(err)));
      }
      return;
    }
    const fresh = page.hands || [];
    await Promise.all(fresh.map((row) => this.tableOf(row.table_id)));
    if (this.gone) return;
    this.hands.push(...fresh);
    this.next = page.next || null;
    await this.render();
  }

  /** A table's view for its name and stakes; null when it cannot be had. */
  tableOf(id) {
    if (!this.names.has(id)) {
      this.names.set(id, this.app.api.view(id).catch(() => null));
    }
    return this.names.get(id);
  }

  async render() {
    if (!this.hands.length) {
      replace(this.root, h("p", { class: "panel muted", id: "myhands-empty" }, t("myhands.empty")));
      return;
    }
    const rows = await Promise.all(this.hands.map(async (row) => this.row(row,
      await this.tableOf(row.table_id))));
    if (this.gone) return;
    replace(this.root,
      h("ul", { class: "panel hand-list", id: "my-hands" }, rows),
      this.next ? h("button", { type: "button", class: "secondary more", id: "myhands-more",
        dataset: { action: "more" }, onclick: (e) => { e.currentTarget.disabled = true; this.load(); } },
      t("myhands.more")) : null);
  }

  row(r, view) {
    // named as the lobby names it; a table nobody sits at now (closed, say) has no host
    const practice = (view?.seats || []).some((s) => s.user_id < 0);
    const name = view && (view.host || practice) ? tableName({ host: view.host, practice })
      : [t("myhands.some_table")];
    const closed = view?.phase === "closed";
    const open = () => this.app.routes.hand(r.table_id, r.hand, { from: "myhands" });
    const about = [view?.settings ? stakes({ ante: view.settings.ante,
      bet_unit: view.settings.bet_unit }) : null, closed ? t("myhands.closed") : null];
    return h("li", { class: `hand-row ${r.result}`, dataset: { table: r.table_id, hand: r.hand,
      result: r.result } },
    h("button", { type: "button", class: "hand-open", onclick: open },
      h("span", { class: "hand-where" },
        h("strong", { class: "hand-table" }, name),
        h("small", { class: "hand-what" }, t("result.hand", { number: r.hand }), " · ",
          h("span", { class: "hand-time" }, when(r.settled_at))),
        h("small", { class: "muted hand-about" }, about.filter(Boolean).join(" · "))),
      h("span", { class: "hand-money" },
        h("strong", { class: `hand-net ${r.won > 0 ? "plus" : r.won < 0 ? "minus" : ""}` },
          net(r.won)),
        h("small", { class: "muted" }, t(RESULTS[r.result] ?? "myhands.result.lost")),
        h("small", { class: "muted" }, t("felt.pot"), " ", num(r.pot)))));
  }
}
