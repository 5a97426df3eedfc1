// Start-up and navigation: find out who is playing and in which language, then show a
// screen. Screens (each a class with mount/unmount, one file each):
//   lobby     /                                   lobby.js
//   table     /?table=<id>                        table.js
//   history   /?table=<id>&screen=history         history.js
//   audit     /?table=<id>&screen=audit&hand=<n>  audit.js
//   replay    /?table=<id>&screen=replay&hand=<n>[&from=table|history|audit|lobby]  replay.js
//   rules     /?screen=rules                      rules.js
//   settings  /?screen=settings                   settings.js
//   my hands  /?screen=myhands                    myhands.js
//   tournaments  /?screen=tournaments (a lobby tab)  tournaments.js
//   tournament   /?screen=tournament&id=<id>         tourney.js
//   leaders   /?screen=leaders&period=week|all (a lobby tab)  leaders.js
//   profile   /?screen=profile&user=<id>          profile.js
//   refused   any, once the server refused Telegram's login   refused.js
// Links (Telegram's start_param, or ?table=&invite=, ?hand=<table>_<n>, ?tournament=) are
// read by links.js; a hand's and a tournament's go through `routes` below.
import { askWriteAccess } from "./access.js";
import { Api } from "./api.js";
import { AuditScreen } from "./audit.js";
import {
  devInitData, devUser, insideTelegram, loadTelegram, rememberDevUser, startParams,
  telegramInitData,
} from "./auth.js";
import { h, hideToast, replace, toast } from "./dom.js";
import { errorText } from "./errors.js";
import { HistoryScreen } from "./history.js";
import { setLanguage, supported, t } from "./i18n.js";
import { LeadersScreen } from "./leaders.js";
import { linkQuery, parseQuery, requestedLink } from "./links.js";
import { Lobby } from "./lobby.js";
import { MyHandsScreen } from "./myhands.js";
import { connection } from "./net.js";
import { ProfileScreen } from "./profile.js";
import { RefusedScreen } from "./refused.js";
import { ReplayScreen } from "./replay.js";
import { RulesScreen } from "./rules.js";
import { SettingsScreen } from "./settings.js";
import { shareHand } from "./share.js";
import { TableScreen } from "./table.js";
import { TournamentsTab } from "./tournaments.js";
import { TournamentScreen } from "./tourney.js";
import { backButton, closingConfirmation, haptic, setupTelegram } from "./telegram.js";

const LANG_KEY = "svara:lang"; // the last language shown here: the first paint uses it

/** The language Telegram's client runs in, from the signed initData's user. */
function telegramLanguage(webApp, initData) {
  const user = webApp?.initDataUnsafe?.user;
  if (user?.language_code) return user.language_code;
  try {
    return JSON.parse(new URLSearchParams(initData).get("user") || "{}").language_code || "";
  } catch {
    return "";
  }
}

/** Where "back" leads from a replayer that is the first page: the place named by `from`. */
function replayParent(params) {
  const table = `?table=${encodeURIComponent(params.get("table"))}`;
  const from = params.get("from");
  if (from === "lobby") return "";
  if (from === "history") return `${table}&screen=history`;
  if (from === "audit") return `${table}&screen=audit&hand=${Number(params.get("hand"))}`;
  return table;
}

class App {
  constructor() {
    this.screen = document.getElementById("screen");
    this.back = document.getElementById("back");
    this.title = document.getElementById("title");
    this.current = null;
    this.name = null;
    this.webApp = null;
    this.api = null;
    this.dev = false;
    this.me = null;
    this.refusal = null; // the server refused Telegram's login: nothing else is shown
    this.depth = 0; // pages pushed by this app: "back" may go back through them
    // Where a link, My hands or a result opens a hand, and a link a tournament: one seat
    // each, so the screen that shows them can change in one place. A hand opens the replayer;
    // a tournament its screen (over the lobby: Back leads there).
    this.routes = {
      hand: (tableId, hand, options) => this.openReplay(tableId, hand, options),
      tournament: (id) => this.openTournament(id),
    };
    this.back.addEventListener("click", () => this.goBack());
    document.getElementById("rules-link").addEventListener("click", () => this.open("?screen=rules"));
    document.getElementById("settings-link").addEventListener("click",
      () => this.open("?screen=settings"));
    document.getElementById("profile-link").addEventListener("click", () => {
      if (this.me?.user?.id) this.openProfile(this.me.user.id);
    });
    window.addEventListener("popstate", () => { this.depth = Math.max(0, this.depth - 1); this.route(); });
    // A socket refused our login (it expired while the app stayed open): ask once over HTTP,
    // which shows the refused screen if the server refuses it there too.
    window.addEventListener("svara:unauthorized", () => {
      if (this.api && !this.api.renew) this.api.me().catch(() => {});
    });
  }

  async start() {
    this.webApp = await loadTelegram();
    const initData = telegramInitData(this.webApp);
    const first = localStorage.getItem(LANG_KEY)
      || (initData ? telegramLanguage(this.webApp, initData) : navigator.language);
    await this.useLanguage(first);
    connection.update();
    if (initData || insideTelegram()) {
      if (this.webApp) {
        setupTelegram(this.webApp, { onBack: () => this.goBack(), onResume: () => this.resume(),
          onPause: () => this.pause() });
      }
      if (!initData) {
        this.fatal(t("error.no_telegram_login"));
        return;
      }
      this.api = new Api(initData, null, (err) => this.refused(err));
      await this.loadMe();
      if (!this.refusal) this.follow(requestedLink(location.search, startParams(this.webApp)));
      return;
    }
    this.dev = true;
    const user = devUser();
    if (user) await this.devLogin(user);
    else this.login();
  }

  /** Paint the page in `code` (the shell's own words too). */
  async useLanguage(code) {
    const lang = await setLanguage(supported(code));
    localStorage.setItem(LANG_KEY, lang);
    this.back.setAttribute("aria-label", t("nav.back"));
    this.back.title = t("nav.back");
    const rules = document.getElementById("rules-link");
    rules.textContent = t("nav.rules");
    const settings = document.getElementById("settings-link");
    settings.setAttribute("aria-label", t("nav.settings"));
    settings.title = t("nav.settings");
    const profile = document.getElementById("profile-link");
    profile.setAttribute("aria-label", t("profile.open"));
    profile.title = t("profile.open");
    document.title = t("app.name");
    connection.paint();
    return lang;
  }

  /** Who the server says we are, and the language it says we play in. */
  async loadMe() {
    try {
      this.me = await this.api.me();
    } catch (err) {
      if (!this.refusal) toast(errorText(err));
      return null;
    }
    if (this.me.language && this.me.language !== document.documentElement.lang) {
      await this.useLanguage(this.me.language);
    }
    return this.me;
  }

  /** The language picker: remembered on the server (the bot speaks it too). */
  async chooseLanguage(code) {
    this.me = await this.api.settings({ language: code });
    await this.useLanguage(this.me.language);
    this.route();
  }

  /** The current initData (dev mode renews it when it expires). */
  get initData() {
    return this.api ? this.api.initData : "";
  }

  /** Dev mode: the person picks a name; the server signs test initData for it. */
  login(current = "") {
    this.unmount();
    this.setTitle(t("app.name"));
    this.back.hidden = true;
    const input = h("input", { name: "name", required: true, maxlength: 32, autocomplete: "nickname",
      placeholder: t("login.placeholder"), value: current, "aria-label": t("login.name") });
    const form = h("form", { class: "panel login", onsubmit: async (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name) return;
      await this.devLogin(rememberDevUser(name), { switching: Boolean(current) });
    } },
    h("h2", {}, t("login.welcome")),
    h("p", { class: "muted" }, t("login.practice")),
    h("label", { class: "field" }, h("span", {}, t("login.name")), input),
    h("button", { type: "submit", class: "primary", dataset: { action: "login" } }, t("login.play")),
    current && this.api && h("button", { type: "button", class: "ghost",
      onclick: () => this.route() }, t("common.cancel")));
    replace(this.screen, form);
    document.body.dataset.screen = "login";
    input.focus();
  }

  /** After switching player, start from the lobby (the new player's chips and tables). */
  async devLogin(user, { switching = false } = {}) {
    try {
      this.api = new Api(await devInitData(user), () => devInitData(user));
    } catch (err) {
      this.fatal(errorText(err));
      return;
    }
    this.devName = user.name;
    await this.loadMe();
    if (switching) this.open("");
    else this.follow(requestedLink(location.search, []));
  }

  /** The player just sat down: the moment to ask once whether the bot may write to them. */
  seated() {
    this.asking = askWriteAccess(this).catch(() => {}); // kept: the tests wait for it
  }

  /** The server refused the initData Telegram gave us: say so until the app is closed. */
  refused(err) {
    this.refusal = err;
    hideToast();
    connection.refuse();
    this.route();
  }

  fatal(message) {
    this.unmount();
    replace(this.screen, h("div", { class: "panel" }, h("p", {}, message)));
  }

  /** Open what the launch's link asks for (links.js): a table stays at its own address
   *  (a start_param becomes one), a hand or a tournament opens over the lobby, and a link
   *  that is not one of ours is the lobby with a message. */
  follow(link) {
    const lobby = `${location.pathname}${location.hash}`;
    if (!link || link.kind === "table") {
      if (link && !new URLSearchParams(location.search).has("table")) {
        history.replaceState(null, "", `${location.pathname}${linkQuery(link)}${location.hash}`);
      }
      this.route();
      return;
    }
    history.replaceState(null, "", lobby);
    if (link.kind === "hand") this.routes.hand(link.id, link.hand, { from: "link" });
    else if (link.kind === "tournament") this.routes.tournament(link.id);
    else {
      this.route();
      toast(t("links.bad"));
    }
  }

  route() {
    const params = new URLSearchParams(location.search);
    const screen = params.get("screen");
    if (screen === "rules") this.show(new RulesScreen(this), "rules");
    else if (this.refusal) this.show(new RefusedScreen(this, this.refusal), "refused");
    else if (!this.api) this.login();
    else if (screen === "settings") this.show(new SettingsScreen(this), "settings");
    else if (screen === "myhands") this.show(new MyHandsScreen(this), "myhands");
    else if (screen === "tournaments") this.show(new TournamentsTab(this), "tournaments");
    else if (screen === "tournament" && params.get("id")) {
      this.show(new TournamentScreen(this, params.get("id")), "tournament");
    } else if (screen === "leaders") {
      this.show(new LeadersScreen(this, { period: params.get("period"),
        group: params.get("group") }), "leaders");
    } else if (screen === "profile" && params.get("user")) {
      this.show(new ProfileScreen(this, params.get("user")), "profile");
    } else {
      const link = parseQuery(location.search);
      if (link && link.kind !== "table") {
        this.follow(link);
        return;
      }
      const id = link?.id;
      if (id && screen === "history") this.show(new HistoryScreen(this, id), "history");
      else if (id && screen === "audit") {
        this.show(new AuditScreen(this, id, link.screenHand ?? 0), "audit");
      } else if (id && screen === "replay") {
        this.show(new ReplayScreen(this, id, link.screenHand ?? 0,
          { from: params.get("from") || "" }), "replay");
      } else if (id) this.show(new TableScreen(this, id, { invite: link.invite }), "table");
      else this.show(new Lobby(this), "lobby");
    }
  }

  /** Go to `query` (e.g. "?table=x"), as a new page of the browser's history. */
  open(query) {
    const url = `${location.pathname}${query}${location.hash}`;
    if (`${location.pathname}${location.search}${location.hash}` !== url) {
      history.pushState(null, "", url);
      this.depth += 1;
    }
    this.route();
  }

  /** `{invite: true}`: open the table's invite sheet once it is drawn (a new private table). */
  openTable(id, { invite = false } = {}) {
    this.inviteFor = invite ? id : null;
    this.open(`?table=${encodeURIComponent(id)}`);
  }
  openLobby() { this.open(""); }
  /** The lobby in place of this page (a link that led nowhere): "back" does not return. */
  toLobby() {
    history.replaceState(null, "", `${location.pathname}${location.hash}`);
    this.route();
  }
  openMyHands() { this.open("?screen=myhands"); }
  /** Share settled hand `hand` of `tableId` (share.js): the replayer's Share too. */
  shareHand(tableId, hand) { return shareHand(this, tableId, hand); }
  openTournament(id) { this.open(`?screen=tournament&id=${encodeURIComponent(id)}`); }
  openProfile(userId) { this.open(`?screen=profile&user=${encodeURIComponent(userId)}`); }
  /** Another lobby tab (`query`: "" the tables): in place, not a new page of the history. */
  switchTab(query) {
    history.replaceState(null, "", `${location.pathname}${query}${location.hash}`);
    this.route();
  }
  openHistory(id) { this.open(`?table=${encodeURIComponent(id)}&screen=history`); }
  openAudit(id, hand) {
    this.open(`?table=${encodeURIComponent(id)}&screen=audit&hand=${hand}`);
  }

  /**
   * The replayer of settled hand `hand` of table `tableId` (a number), as a new page: "back"
   * (the app's and Telegram's BackButton) returns to where it was opened from. `from` names
   * that place when the replayer is the first page (a link opened it): "table" (the
   * default), "history", "audit" or "lobby". Links such as `?hand=` or a start parameter
   * can call this directly.
   */
  openReplay(tableId, hand, { from = "" } = {}) {
    const back = from ? `&from=${encodeURIComponent(from)}` : "";
    this.open(`?table=${encodeURIComponent(tableId)}&screen=replay&hand=${Number(hand)}${back}`);
  }

  /** Back: through the pages this app opened, else up to the screen's parent. */
  goBack() {
    if (this.depth > 0) {
      history.back();
      return;
    }
    const params = new URLSearchParams(location.search);
    const id = params.get("table");
    let parent = id && params.get("screen") ? `?table=${encodeURIComponent(id)}` : "";
    if (id && params.get("screen") === "replay") parent = replayParent(params);
    history.replaceState(null, "", `${location.pathname}${parent}${location.hash}`);
    this.route();
  }

  /** Back from the background (Telegram's "activated", or the tab shown again). */
  resume() {
    this.current?.resume?.();
  }

  /** Into the background (Telegram's "deactivated", or the tab hidden). */
  pause() {
    this.current?.pause?.();
  }

  unmount() {
    if (this.current && this.current.unmount) this.current.unmount();
    this.current = null;
    closingConfirmation(false);
  }

  setTitle(text, sub = "") {
    replace(this.title, h("span", { class: "title-main" }, text),
      sub && h("small", { class: "title-sub" }, sub));
  }

  show(screen, name) {
    this.unmount();
    document.body.dataset.screen = name;
    // the lobby's tabs and the refused screen are where "back" ends
    const away = !["lobby", "tournaments", "leaders", "refused"].includes(name);
    // A refused login has no settings to change (they live on the server).
    document.getElementById("settings-link").hidden = name === "refused";
    document.getElementById("profile-link").hidden = name === "refused" || !this.me;
    this.back.hidden = !away;
    backButton(away);
    this.setTitle(t("app.name"));
    this.current = screen;
    screen.mount(this.screen);
  }

  haptic(kind) { haptic(kind); }
}

const app = new App();
window.svara = app; // handy in the browser console (and the tests)
document.addEventListener("visibilitychange", () => {
  if (document.hidden) app.pause();
  else app.resume();
});
app.start().catch((err) => toast(String(err)));
