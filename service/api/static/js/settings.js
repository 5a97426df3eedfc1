// Settings: the language (kept on the server, so the bot speaks it too), turn pings from the
// bot, sounds on this device, and in dev mode who is playing. Each part is a section of its
// own (`SECTIONS`): a new setting is one more function.
import { h, replace, toast, who } from "./dom.js";
import { errorText } from "./errors.js";
import { LANGUAGES, language, t } from "./i18n.js";
import { muted, play, setMuted } from "./sound.js";

// Each language by its own name: a player who cannot read the current one still finds theirs.
const NATIVE = { en: "English", ru: "Русский", bg: "Български", tr: "Türkçe", de: "Deutsch",
  ar: "العربية" };

function toggle({ name, label, hint, on, change }) {
  const input = h("input", { type: "checkbox", role: "switch", name, checked: on,
    onchange: () => change(input.checked, input) });
  return h("label", { class: "switch-row" },
    h("span", { class: "switch-text" }, h("span", {}, label), hint && h("small", { class: "muted" }, hint)),
    input, h("span", { class: "switch", "aria-hidden": "true" }));
}

function languageSection(app) {
  const current = language();
  return h("section", { class: "panel", id: "language" },
    h("h2", {}, t("settings.language")),
    h("div", { class: "languages", role: "radiogroup" }, LANGUAGES.map((code) => h("button", {
      type: "button", class: `lang${code === current ? " on" : ""}`, role: "radio",
      "aria-checked": String(code === current), lang: code, dataset: { lang: code },
      onclick: async () => {
        if (code === language()) return;
        try {
          await app.chooseLanguage(code);
        } catch (err) {
          toast(errorText(err));
        }
      } }, NATIVE[code]))),
    h("p", { class: "muted" }, t("settings.language_hint")));
}

function pingsSection(app) {
  const on = app.me?.settings?.pings ?? true;
  return h("section", { class: "panel", id: "pings" },
    toggle({ name: "pings", label: t("settings.pings"), hint: t("settings.pings_hint"), on,
      change: async (value, input) => {
        try {
          app.me = await app.api.settings({ pings: value });
        } catch (err) {
          input.checked = !value;
          toast(errorText(err));
        }
      } }));
}

function soundSection() {
  return h("section", { class: "panel", id: "sound" },
    toggle({ name: "sound", label: t("settings.sound"), hint: t("settings.sound_hint"), on: !muted(),
      change: (value) => { setMuted(!value); if (value) play("chip"); } }));
}

function playerSection(app) {
  if (!app.dev) return null;
  return h("section", { class: "panel", id: "player" },
    h("h2", {}, t("settings.player")),
    h("p", {}, t("settings.playing_as"), " ", h("strong", {}, who(app.devName || app.me?.user?.name || ""))),
    h("button", { type: "button", id: "who", dataset: { action: "switch" },
      onclick: () => app.login(app.devName || "") }, t("settings.switch")));
}

export const SECTIONS = [languageSection, pingsSection, soundSection, playerSection];

export class SettingsScreen {
  constructor(app) {
    this.app = app;
    this.root = h("section", { class: "settings" });
  }

  async mount(screen) {
    replace(screen, this.root);
    this.app.setTitle(t("settings.title"));
    if (!this.app.me) await this.app.loadMe();
    replace(this.root, SECTIONS.map((section) => section(this.app)));
  }
}
