// A login the server refused (initData forged, or signed too long ago): a screen that stays.
// Only Telegram can sign a new login, and it does so when the Mini App is opened again, so
// the way out is closing it; the same initData is never sent again (api.js).
import { h, replace } from "./dom.js";
import { t } from "./i18n.js";

export class RefusedScreen {
  constructor(app, err) {
    this.app = app;
    this.expired = err?.code === "expired_init_data";
  }

  mount(screen) {
    const webApp = this.app.webApp;
    const close = webApp?.close
      ? h("button", { type: "button", class: "primary", dataset: { action: "close" },
        onclick: () => webApp.close() }, t("refused.close"))
      : null;
    replace(screen, h("section", { class: "panel refused", id: "refused" },
      h("h2", {}, t("refused.title")),
      h("p", {}, this.expired ? t("refused.expired") : t("refused.invalid")),
      h("p", { class: "muted" }, t("refused.reopen")),
      close));
  }
}
