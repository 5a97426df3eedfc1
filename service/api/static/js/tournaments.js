// The lobby's Tournaments tab: the Sit & Gos filling up (register or unregister, seats
// taken, buy-in, prizes, time left to fill), the ones being played (watch their table), the
// finished ones with their standings and the cancelled ones; and creating one
// (tourneyform.js). A tournament's own screen is tourney.js.
import { h, refreshEvery, replace, toast } from "./dom.js";
import { errorText } from "./errors.js";
import { chips, t } from "./i18n.js";
import { lobbyTabs } from "./tabs.js";
import { tournamentForm } from "./tourneyform.js";
import {
  fillLeft, inTournament, prizeLine, refusalText, scheduleText, standings, statusBadge, tourneyApi,
} from "./tourneyparts.js";

const FINISHED_SHOWN = 5; // finished ones shown with their standings (the newest)
const done = new Map(); // finished or cancelled tournaments never change: fetched once

export class TournamentsTab {
  constructor(app) {
    this.app = app;
    this.root = h("section", { class: "lobby tourneys" });
    this.gone = false;
    this.busy = false; // a registration on its way: no redraw under it
    this.form = null;
  }

  mount(screen) {
    replace(screen, this.root);
    replace(this.root, lobbyTabs(this.app, "tournaments"),
      h("div", { class: "loading" }, h("span"), h("span"), h("span")));
    this.refresh();
    this.timer = refreshEvery(this.root, 4000, () => this.busy, () => this.refresh());
  }

  unmount() {
    this.gone = true;
    clearInterval(this.timer);
  }

  resume() { this.refresh(); }

  async refresh() {
    let me, list;
    try {
      [me, list] = await Promise.all([this.app.api.me(), tourneyApi.list(this.app.api)]);
    } catch (err) {
      if (!this.gone) toast(errorText(err));
      return;
    }
    const rows = list.tournaments || [];
    const finished = rows.filter((r) => r.status === "finished").slice(0, FINISHED_SHOWN);
    await Promise.all(finished.filter((r) => !done.has(r.tournament_id)).map(async (r) => {
      try {
        done.set(r.tournament_id, await tourneyApi.get(this.app.api, r.tournament_id));
      } catch { /* shown without its standings this time */ }
    }));
    if (this.gone) return;
    this.me = me;
    this.app.me = me;
    this.paint(rows);
  }

  paint(rows) {
    const by = (status) => rows.filter((r) => status.includes(r.status));
    if (!this.form) this.form = tournamentForm(this.app);
    const section = (id, title, items, empty) => h("div", { class: "panel", id },
      h("h2", {}, title),
      items.length ? h("ul", { class: "tables t-list" }, items.map((r) => this.row(r)))
        : h("p", { class: "muted" }, empty));
    replace(this.root, lobbyTabs(this.app, "tournaments"),
      h("p", { class: "muted t-wallet" }, t("tourney.your_chips", { chips: chips(this.me.balance) })),
      section("t-registering", t("tourney.registering"), by(["registering"]), t("tourney.none_open")),
      by(["running"]).length ? section("t-running", t("tourney.running"), by(["running"]), "") : null,
      by(["finished", "cancelled"]).length
        ? section("t-finished", t("tourney.finished"), by(["finished", "cancelled"]), "") : null,
      this.form);
  }

  row(r) {
    const id = r.tournament_id;
    const mine = inTournament(this.me, id);
    const info = [h("strong", { class: "table-name" }, h("bdi", {}, r.name)), " ", statusBadge(r.status)];
    const facts = [t("tourney.buy_in", { chips: chips(r.buy_in) })];
    let extra = null;
    let actions = [];
    const details = h("button", { type: "button", class: "ghost", dataset: { action: "details" },
      onclick: () => this.app.openTournament(id) }, t("tourney.details"));
    if (r.status === "registering") {
      facts.unshift(h("span", { class: "t-seats", dataset: { registered: r.registered } },
        t("tourney.seats", { registered: r.registered, seats: r.seats })));
      facts.push(fillLeft(r.fill_by, this.app.api.clockAhead ?? 0));
      if (scheduleText(r)) facts.push(h("span", { class: "t-schedule" }, scheduleText(r)));
      extra = h("div", { class: "t-prizes muted" }, prizeLine(r));
      actions = [mine
        ? h("button", { type: "button", class: "ghost", dataset: { action: "unregister" },
          onclick: (e) => this.register(r, false, e.currentTarget) }, t("tourney.unregister"))
        : h("button", { type: "button", class: "primary", dataset: { action: "register" },
          disabled: r.registered >= r.seats,
          onclick: (e) => this.register(r, true, e.currentTarget) }, t("tourney.register")),
      details];
    } else if (r.status === "running") {
      facts.unshift(t("tourney.players", { count: r.seats }));
      if (scheduleText(r)) facts.push(h("span", { class: "t-schedule" }, scheduleText(r)));
      actions = [h("button", { type: "button", class: mine ? "primary" : "", dataset: {
        action: mine ? "open" : "watch" }, onclick: () => this.app.openTable(r.table_id) },
      mine ? t("tourney.open_table") : t("tourney.watch")), details];
    } else {
      const known = done.get(id);
      extra = r.status === "cancelled" ? h("p", { class: "muted" }, t("tourney.cancelled_note"))
        : known && standings(this.app, known.players, { limit: 3 });
      actions = [details];
    }
    return h("li", { class: "table-row t-row", dataset: { tournament: id, status: r.status } },
      h("div", { class: "table-info" }, h("div", {}, info),
        h("div", { class: "muted" }, facts.flatMap((f, i) => (i ? [" · ", f] : [f]))),
        mine && h("span", { class: "badge mine" }, r.status === "registering"
          ? t("tourney.you_registered") : t("tourney.you_play"))),
      extra, h("div", { class: "table-actions" }, actions));
  }

  /** Register (or not): one tap, one request; a refusal says why and changes nothing. */
  async register(r, join, button) {
    if (this.busy) return;
    this.busy = true;
    button.disabled = true;
    try {
      await (join ? tourneyApi.register : tourneyApi.unregister)(this.app.api, r.tournament_id);
      this.app.haptic("tap");
      toast(join ? t("tourney.registered_toast", { chips: chips(r.buy_in) })
        : t("tourney.unregistered_toast", { chips: chips(r.buy_in) }), "info");
    } catch (err) {
      this.app.haptic("error");
      toast(refusalText(err, { buyIn: r.buy_in, balance: this.me.balance }));
    } finally {
      this.busy = false;
    }
    await this.refresh();
  }
}
