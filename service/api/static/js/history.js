// A table's hand history: the last hands, newest first, each with its winner, pot, every
// shown hand and its score, a way to check it (its audit) and to watch it again (the replayer).
import { h, replace } from "./dom.js";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";
import { resultPanel } from "./panels.js";

const LIMIT = 20;

export class HistoryScreen {
  constructor(app, tableId) {
    this.app = app;
    this.tableId = tableId;
    this.root = h("section", { class: "history" });
  }

  async mount(screen) {
    replace(screen, this.root);
    this.app.setTitle(t("history.title"));
    replace(this.root, h("div", { class: "loading" }, h("span"), h("span"), h("span")));
    let hands;
    let me = null;
    try {
      [{ hands }, { you: { seat: me } }] = await Promise.all([
        this.app.api.hands(this.tableId, LIMIT), this.app.api.view(this.tableId)]);
    } catch (err) {
      replace(this.root, h("p", { class: "panel" }, errorText(err)));
      return;
    }
    replace(this.root,
      h("p", { class: "muted" }, hands.length ? t("history.count", { count: hands.length })
        : t("history.none")),
      hands.map((r) => resultPanel(r, { me, compact: true,
        onAudit: () => this.app.openAudit(this.tableId, r.number),
        onShare: () => this.app.shareHand(this.tableId, r.number),
        onReplay: () => this.app.openReplay(this.tableId, r.number, { from: "history" }) })));
  }
}
