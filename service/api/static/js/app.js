// Start-up and navigation: find out who is playing, then show the lobby, a table or the rules.
import { Api } from "./api.js";
import {
  devInitData, devUser, insideTelegram, loadTelegram, rememberDevUser,
  requestedTable, telegramInitData,
} from "./auth.js";
import { h, replace, toast } from "./dom.js";
import { Lobby } from "./lobby.js";
import { rulesScreen } from "./rules.js";
import { TableScreen } from "./table.js";

class App {
  constructor() {
    this.screen = document.getElementById("screen");
    this.back = document.getElementById("back");
    this.who = document.getElementById("who");
    this.current = null;
    this.webApp = null;
    this.api = null;
    this.dev = false;
    this.back.addEventListener("click", () => this.openLobby());
    document.getElementById("rules-link").addEventListener("click", () => this.openRules());
    this.who.addEventListener("click", () => {
      if (this.dev) this.login(devUser()?.name || "");
    });
    window.addEventListener("popstate", () => this.route());
  }

  async start() {
    this.webApp = await loadTelegram();
    const initData = telegramInitData(this.webApp);
    if (initData || insideTelegram()) {
      this.setupTelegram();
      if (!initData) {
        this.fatal("Telegram did not pass your login to the game. Close it and open it again.");
        return;
      }
      this.useInitData(initData);
      this.route(requestedTable(this.webApp));
      return;
    }
    this.dev = true;
    const user = devUser();
    if (user) await this.devLogin(user);
    else this.login();
  }

  setupTelegram() {
    const tg = this.webApp;
    if (!tg) return;
    document.documentElement.classList.add("telegram");
    tg.ready();
    tg.expand();
    tg.disableVerticalSwipes?.(); // a swipe while scrolling the table must not close the game
    tg.BackButton?.onClick(() => this.openLobby());
  }

  useInitData(initData, renew = null) {
    this.api = new Api(initData, renew);
  }

  /** The current initData (dev mode renews it when it expires). */
  get initData() {
    return this.api ? this.api.initData : "";
  }

  /** Dev mode: the person picks a name; the server signs test initData for it. */
  login(current = "") {
    this.unmount();
    const input = h("input", { name: "name", required: true, maxlength: 32, autocomplete: "nickname",
      placeholder: "Your name", value: current });
    const form = h("form", { class: "panel login", onsubmit: async (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name) return;
      await this.devLogin(rememberDevUser(name), { switching: Boolean(current) });
    } },
    h("h2", {}, "Welcome to Svara"),
    h("p", { class: "muted" }, "Practice mode: no Telegram needed. Pick a name to play with "
      + "test chips; it is remembered on this device."),
    input, h("button", { type: "submit", class: "primary", dataset: { action: "login" } }, "Play"),
    current && this.api && h("button", { type: "button", class: "ghost",
      onclick: () => this.route() }, "Cancel"));
    replace(this.screen, form);
    input.focus();
  }

  /** After switching player, start from the lobby (the new player's chips and tables). */
  async devLogin(user, { switching = false } = {}) {
    try {
      this.useInitData(await devInitData(user), () => devInitData(user));
    } catch (err) {
      this.fatal(err.message);
      return;
    }
    this.setUser(user);
    if (switching) this.openLobby();
    else this.route(requestedTable(null));
  }

  setUser(user) {
    this.who.hidden = false;
    this.who.textContent = this.dev ? `${user.name} ⇄` : user.name;
    this.who.title = this.dev ? "Switch player" : "";
  }

  fatal(message) {
    this.unmount();
    replace(this.screen, h("div", { class: "panel" }, h("p", {}, message)));
  }

  route(table = undefined) {
    const params = new URLSearchParams(location.search);
    const id = table === undefined ? params.get("table") : table;
    if (params.get("screen") === "rules") this.show(null, "rules");
    else if (id) this.show(new TableScreen(this, id), "table");
    else this.show(new Lobby(this), "lobby");
  }

  navigate(query) {
    const url = `${location.pathname}${query}${location.hash}`;
    if (`${location.pathname}${location.search}${location.hash}` !== url) {
      history.pushState(null, "", url);
    }
    this.route();
  }

  openTable(id) { this.navigate(`?table=${encodeURIComponent(id)}`); }
  openLobby() { this.navigate(""); }
  openRules() { this.navigate("?screen=rules"); }

  unmount() {
    if (this.current && this.current.unmount) this.current.unmount();
    this.current = null;
  }

  show(screen, name) {
    this.unmount();
    if (!this.api && name !== "rules") {
      this.login();
      return;
    }
    document.body.dataset.screen = name;
    const away = name !== "lobby";
    this.back.hidden = !away;
    if (this.webApp?.BackButton) {
      if (away) this.webApp.BackButton.show(); else this.webApp.BackButton.hide();
    }
    if (name === "rules") {
      replace(this.screen, rulesScreen());
      return;
    }
    this.current = screen;
    screen.mount(this.screen);
  }

  haptic(kind) {
    this.webApp?.HapticFeedback?.impactOccurred?.(kind);
  }
}

const app = new App();
window.svara = app; // handy in the browser console
app.start().catch((err) => toast(String(err)));
