// The leaders (`/?screen=leaders&period=week|all[&group=<chat_id>]`): the top 50 by chips
// won, this week or all time, from GET /api/leaderboard; your own row highlighted, or pinned
// under the list when you are not in the top 50. A row opens that player's profile.
import { h, replace, toast } from "./dom.js";
import { errorText } from "./errors.js";
import { num, t } from "./i18n.js";
import { signed } from "./profile.js";
import { lobbyTabs } from "./tabs.js";

export class LeadersScreen {
  constructor(app, { period, group }) {
    this.app = app;
    this.period = period === "all" ? "all" : "week";
    this.group = group || "";
    this.root = h("section", { class: "lobby leaders" });
  }

  mount(screen) {
    replace(screen, this.root);
    this.paint(null);
    this.load();
  }

  unmount() { this.gone = true; }

  resume() { this.load(); }

  async load() {
    const query = new URLSearchParams({ period: this.period });
    if (this.group) query.set("group", this.group);
    const period = this.period;
    try {
      const board = await this.app.api.request("GET", `/api/leaderboard?${query}`);
      if (!this.gone && period === this.period) this.paint(board);
    } catch (err) {
      if (!this.gone) {
        toast(errorText(err));
        this.paint({ entries: [], you: null, failed: true });
      }
    }
  }

  choose(period) {
    if (period === this.period) return;
    this.period = period;
    const query = new URLSearchParams({ screen: "leaders", period });
    if (this.group) query.set("group", this.group);
    history.replaceState(null, "", `${location.pathname}?${query}${location.hash}`);
    this.paint(null);
    this.load();
  }

  row(e, mine) {
    return h("li", { class: mine ? "leader you" : "leader", dataset: { user: e.user_id, rank: e.rank } },
      h("button", { type: "button", class: "leader-row", dataset: { action: "profile" },
        onclick: () => this.app.openProfile(e.user_id) },
      h("span", { class: "rank" }, num(e.rank)),
      h("bdi", { class: "user leader-name", translate: "no" }, e.name),
      h("bdi", { class: `leader-net ${e.net < 0 ? "neg" : "pos"}`, dir: "ltr" }, signed(e.net))));
  }

  paint(board) {
    const me = this.app.me?.user?.id;
    const toggle = h("div", { class: "period", role: "radiogroup" },
      [["week", t("leaders.week")], ["all", t("leaders.all")]].map(([p, label]) => h("button", {
        type: "button", role: "radio", class: p === this.period ? "quick on" : "quick",
        "aria-checked": String(p === this.period), dataset: { period: p },
        onclick: () => this.choose(p) }, label)));
    let body;
    if (!board) body = h("div", { class: "loading" }, h("span"), h("span"), h("span"));
    else if (!board.entries.length) {
      body = h("p", { class: "muted", id: "leaders-empty" },
        board.failed ? t("leaders.failed") : t("leaders.empty"));
    } else {
      body = h("ol", { class: "leaders-list", id: "leaders-list" },
        board.entries.slice(0, 50).map((e) => this.row(e, e.user_id === me)));
    }
    const listed = board?.entries.some((e) => e.user_id === me);
    const you = board?.you;
    const pinned = board && !listed && (you
      ? h("div", { class: "panel pinned", id: "leaders-you" },
        h("ol", { class: "leaders-list" }, this.row({ rank: you.rank, user_id: me,
          name: this.app.me?.user?.name ?? "", net: you.net }, true)))
      : h("p", { class: "muted pinned-none", id: "leaders-you" }, t("leaders.not_ranked")));
    replace(this.root, lobbyTabs(this.app, "leaders"),
      h("div", { class: "panel" },
        h("h2", {}, this.group ? t("leaders.title_group") : t("leaders.title")),
        toggle, body),
      pinned || null);
  }
}
