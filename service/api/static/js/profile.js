// A player's profile (`/?screen=profile&user=<id>`): their hands, wins, win rate, net,
// biggest pot, svaras and best score, all time and the last 7 days, from
// GET /api/players/{user_id}/stats. Opened for yourself from the header, and for anyone by
// tapping their seat at a table, their row among the leaders or a tournament's players.
import { h, replace } from "./dom.js";
import { errorText } from "./errors.js";
import { language, num, t } from "./i18n.js";

const ROWS = [
  ["hands", "profile.hands"], ["won", "profile.won"], ["win_rate", "profile.win_rate"],
  ["net", "profile.net"], ["biggest_pot", "profile.biggest_pot"], ["svaras", "profile.svaras"],
  ["svaras_won", "profile.svaras_won"], ["best_score", "profile.best_score"],
];

/** +1,200 / −300 / 0: chips won or lost, signed. */
export function signed(n) {
  // the sign by hand: Intl's signed Arabic carries bidi marks that an LTR box shows twice
  const sign = n > 0 ? "+" : n < 0 ? "-" : "";
  return sign + new Intl.NumberFormat(language()).format(Math.abs(n));
}

/** The share of hands won: the server's `win_rate` (0..1) when it sends one, else won/hands. */
export function winRate(s) {
  const rate = typeof s.win_rate === "number" ? (s.win_rate > 1 ? s.win_rate / 100 : s.win_rate)
    : s.hands ? s.won / s.hands : null;
  if (rate === null) return "–";
  return new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 0 })
    .format(rate);
}

function cell(key, s) {
  if (!s) return "–";
  if (key === "win_rate") return winRate(s);
  if (key === "net") return h("bdi", { dir: "ltr" }, signed(s.net ?? 0));
  const value = s[key];
  return value === null || value === undefined ? "–" : num(value);
}

export class ProfileScreen {
  constructor(app, userId) {
    this.app = app;
    this.userId = userId;
    this.root = h("section", { class: "profile" });
  }

  mount(screen) {
    replace(screen, this.root);
    replace(this.root, h("div", { class: "loading" }, h("span"), h("span"), h("span")));
    this.load();
  }

  unmount() { this.gone = true; }

  resume() { this.load(); }

  async load() {
    let stats;
    try {
      stats = await this.app.api.request("GET",
        `/api/players/${encodeURIComponent(this.userId)}/stats`);
    } catch (err) {
      if (this.gone) return;
      const me = this.app.me?.user;
      if (err.status === 404 && me && String(me.id) === String(this.userId)) {
        // no hand of yours counted yet: your profile, all zeros
        const zero = { hands: 0, won: 0, net: 0, biggest_pot: 0, svaras: 0, svaras_won: 0,
          best_score: 0 };
        this.paint({ user_id: me.id, name: me.name, all: zero, week: zero });
        return;
      }
      const text = err.status === 404 ? t("profile.not_found") : errorText(err);
      replace(this.root, h("div", { class: "panel", id: "profile-error" }, h("p", {}, text)));
      return;
    }
    if (!this.gone) this.paint(stats);
  }

  paint(stats) {
    const own = String(stats.user_id) === String(this.app.me?.user?.id);
    this.app.setTitle(stats.name, own ? t("profile.you") : t("profile.title"));
    const none = !(stats.all?.hands);
    replace(this.root,
      h("div", { class: "panel profile-head", dataset: { user: stats.user_id } },
        h("div", { class: "avatar", "aria-hidden": "true" }, [...(stats.name || "?")][0].toUpperCase()),
        h("div", { class: "profile-who" },
          h("h2", { class: "profile-name" }, h("bdi", { class: "user", translate: "no" }, stats.name)),
          own && h("span", { class: "badge mine" }, t("profile.you"))),
        h("div", { class: "profile-net" }, h("small", { class: "muted" }, t("profile.net_all")),
          h("strong", { class: (stats.all?.net ?? 0) < 0 ? "neg" : "pos" },
            h("bdi", { dir: "ltr" }, signed(stats.all?.net ?? 0))))),
      h("div", { class: "panel" },
        none ? h("p", { class: "muted", id: "profile-empty" }, t("profile.no_hands")) : null,
        h("table", { class: "stats-table", id: "profile-stats" },
          h("thead", {}, h("tr", {}, h("th", {}),
            h("th", { scope: "col" }, t("profile.all_time")),
            h("th", { scope: "col" }, t("profile.last_7_days")))),
          h("tbody", {}, ROWS.map(([key, label]) => h("tr", { dataset: { stat: key } },
            h("th", { scope: "row" }, t(label)),
            h("td", { dataset: { period: "all" } }, cell(key, stats.all)),
            // the API's `week` is its deprecated alias, the same figures
            h("td", { dataset: { period: "last_7_days" } }, cell(key, stats.last_7_days))))))),
      own && h("button", { type: "button", class: "ghost", dataset: { action: "leaders" },
        onclick: () => this.app.open("?screen=leaders") }, t("leaders.open")));
  }
}
