// One tournament (`/?screen=tournament&id=<id>`): its settings, who plays, the places and
// prizes, the level and ante, its table (watch or play), and once it is over the server's
// audit of its standings (GET /api/tournaments/{id}/audit). Kept current while it fills up
// or plays.
import { h, replace, toast } from "./dom.js";
import { errorText } from "./errors.js";
import { chips, num, t } from "./i18n.js";
import {
  fillLeft, prizeChips, refusalText, scheduleText, standings, statusBadge, statusText, tourneyApi,
} from "./tourneyparts.js";

const CHECKS = [["chain", "tourney.check_chain"], ["eliminations", "tourney.check_eliminations"],
  ["levels", "tourney.check_levels"], ["places", "tourney.check_places"],
  ["prizes", "tourney.check_prizes"]];

function fact(label, value, key) {
  return h("div", { class: "fact", dataset: { fact: key } }, h("dt", {}, label), h("dd", {}, value));
}

export class TournamentScreen {
  constructor(app, id) {
    this.app = app;
    this.id = id;
    this.root = h("section", { class: "tourney" });
    this.tn = null;
    this.audit = null;
    this.busy = false;
  }

  mount(screen) {
    replace(screen, this.root);
    replace(this.root, h("div", { class: "loading" }, h("span"), h("span"), h("span")));
    this.refresh();
    this.timer = setInterval(() => {
      const live = this.tn && ["registering", "running"].includes(this.tn.status);
      if (!document.hidden && live && !this.busy) this.refresh();
    }, 3000);
  }

  unmount() {
    this.gone = true;
    clearInterval(this.timer);
  }

  resume() { this.refresh(); }

  async refresh() {
    try {
      const [tn, me] = await Promise.all([tourneyApi.get(this.app.api, this.id), this.app.api.me()]);
      this.app.me = me;
      if (!this.audit && ["finished", "cancelled"].includes(tn.status)) {
        this.audit = await tourneyApi.audit(this.app.api, this.id).catch(() => null);
      }
      if (this.gone) return;
      this.tn = tn;
      this.paint();
    } catch (err) {
      if (this.gone) return;
      if (!this.tn) {
        replace(this.root, h("div", { class: "panel" }, h("p", {}, refusalText(err)),
          h("button", { type: "button", onclick: () => this.app.switchTab("?screen=tournaments") },
            t("tourney.to_list"))));
      } else toast(errorText(err));
    }
  }

  get mine() {
    const me = this.app.me?.user?.id;
    return Boolean(this.tn?.players.some((p) => p.user_id === me));
  }

  paint() {
    const tn = this.tn;
    this.app.setTitle(t("tourney.table_badge"), statusText(tn.status));
    replace(this.root, this.head(tn), this.prizes(tn), this.players(tn), this.rules(tn),
      this.auditPanel());
  }

  head(tn) {
    const s = tn.settings;
    const facts = [
      fact(t("tourney.seats_label"), h("span", { class: "t-seats", dataset: {
        registered: tn.players.length } }, tn.status === "registering" ? t("tourney.seats", {
        registered: tn.players.length, seats: s.seats }) : t("tourney.players", {
        count: tn.players.length })), "seats"),
      fact(t("tourney.buy_in_label"), chips(s.buy_in), "buy_in"),
    ];
    if (tn.status === "registering") {
      facts.push(fact(t("tourney.fill_label"), fillLeft(tn.fill_by, this.app.api.clockAhead ?? 0),
        "fill"));
    }
    if (tn.status === "running") {
      facts.push(fact(t("tourney.level_label"), t("tourney.level_ante", {
        level: tn.level, ante: tn.ante ?? s.antes[tn.level - 1] }), "level"));
    }
    return h("div", { class: "panel t-head" },
      h("div", { class: "t-title" }, h("h2", {}, h("bdi", {}, s.name)), statusBadge(tn.status)),
      h("dl", { class: "facts" }, facts),
      h("p", { class: "muted t-schedule" }, scheduleText(s)),
      this.mine && tn.status === "registering"
        && h("p", { class: "badge mine" }, t("tourney.you_registered")),
      tn.status === "cancelled" && h("p", { class: "muted" }, t("tourney.cancelled_note")),
      h("div", { class: "table-actions" }, this.actions(tn)));
  }

  actions(tn) {
    if (tn.status === "registering") {
      const full = tn.players.length >= tn.settings.seats;
      return this.mine
        ? h("button", { type: "button", class: "ghost", dataset: { action: "unregister" },
          onclick: () => this.register(false) }, t("tourney.unregister"))
        : h("button", { type: "button", class: "primary", dataset: { action: "register" },
          disabled: full, onclick: () => this.register(true) },
        t("tourney.register_for", { chips: chips(tn.settings.buy_in) }));
    }
    if (!tn.table_id) return null;
    const playing = this.mine && tn.status === "running";
    return h("button", { type: "button", class: playing ? "primary" : "",
      dataset: { action: playing ? "open" : "watch" }, onclick: () => this.app.openTable(tn.table_id) },
    playing ? t("tourney.open_table") : t("tourney.watch"));
  }

  prizes(tn) {
    // while it fills, `pool` is the buy-ins taken so far: it pays every seat's (the note)
    const pool = tn.status === "registering" ? 0 : tn.pool;
    const rows = prizeChips({ ...tn.settings, prize_table: tn.prize_table, pool });
    return h("div", { class: "panel", id: "t-prizes" },
      h("h2", {}, t("tourney.prizes")),
      h("table", { class: "t-table" }, h("tbody", {}, rows.map((r) => h("tr", {},
        h("th", { scope: "row" }, t("tourney.place", { place: r.place })),
        h("td", {}, `${num(r.percent)}%`),
        h("td", { class: "num" }, chips(r.chips)))))),
      tn.status === "registering" && h("p", { class: "muted" }, t("tourney.prizes_note")));
  }

  players(tn) {
    const me = this.app.me?.user?.id;
    const placedAll = tn.status === "finished";
    const body = placedAll ? standings(this.app, tn.players)
      : tn.players.length ? h("ul", { class: "t-players" }, tn.players.map((p) => h("li", {
        class: p.user_id === me ? "standing you" : "standing", dataset: { user: p.user_id } },
      h("span", { class: "place" }, p.place ? num(p.place) : "·"),
      h("button", { type: "button", class: "link who-link", dataset: { action: "profile" },
        onclick: () => this.app.openProfile(p.user_id) }, h("bdi", { class: "user", translate: "no" },
        p.name)),
      h("span", { class: "muted" }, p.place ? t("tourney.out") : "")))) : h("p", { class: "muted" },
        t("tourney.no_players"));
    return h("div", { class: "panel", id: "t-players" },
      h("h2", {}, placedAll ? t("tourney.standings") : t("tourney.players_title")), body);
  }

  rules(tn) {
    const s = tn.settings;
    return h("details", { class: "panel", id: "t-settings" },
      h("summary", {}, t("tourney.settings")),
      h("dl", { class: "facts" },
        fact(t("tourney.form_stack"), num(s.stack), "stack"),
        fact(t("tourney.antes_label"), s.antes.map((a) => num(a)).join(" → "), "antes"),
        s.minutes_per_level > 0
          ? fact(t("tourney.form_minutes"), num(s.minutes_per_level), "minutes")
          : fact(t("tourney.form_hands"), num(s.hands_per_level), "hands"),
        s.turn_seconds && fact(t("tourney.form_turn"), num(s.turn_seconds), "turn")),
      h("p", { class: "muted" }, t("tourney.table_rules")));
  }

  auditPanel() {
    const a = this.audit;
    if (!a) return null;
    return h("div", { class: `panel verdict ${a.verified ? "ok" : "bad"}`, id: "t-audit",
      dataset: { verified: String(a.verified) } },
    h("h2", { class: "verdict-head" }, a.verified ? t("tourney.audit_ok") : t("tourney.audit_bad")),
    h("ul", { class: "checks" }, CHECKS.map(([key, label]) => {
      const check = a.checks?.[key];
      const ok = check?.ok;
      return h("li", { class: check ? (ok ? "ok" : "bad") : "none", dataset: { check: key } },
        h("span", { class: "mark", "aria-hidden": "true" }, check ? (ok ? "✓" : "✗") : "–"),
        h("span", { class: "check-text" }, t(label)));
    })),
    h("p", { class: "muted" }, t("tourney.audit_events", { count: a.events?.length ?? 0 })));
  }

  async register(join) {
    if (this.busy) return;
    this.busy = true;
    const balance = this.app.me?.balance ?? 0;
    try {
      this.tn = await (join ? tourneyApi.register : tourneyApi.unregister)(this.app.api, this.id);
      this.app.haptic("tap");
      this.app.me = await this.app.api.me().catch(() => this.app.me);
    } catch (err) {
      this.app.haptic("error");
      toast(refusalText(err, { buyIn: this.tn.settings.buy_in, balance }));
    } finally {
      this.busy = false;
    }
    if (!this.gone) this.paint();
  }
}
