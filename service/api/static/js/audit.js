// The audit of one settled hand: the server replays it from the stored events (hash chain,
// every deck against the commitment published before the deal, chips, the result) and says
// what held. This screen shows each check in words and each deal's commitment, seed and
// deck, so a doubting player sees what was proven and can recompute it elsewhere.
import { card } from "./cards.js";
import { h, replace } from "./dom.js";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";

const CHECKS = { chain: "audit.chain", deck: "audit.deck", chips: "audit.chips",
  replay: "audit.replay" };

export class AuditScreen {
  constructor(app, tableId, hand) {
    this.app = app;
    this.tableId = tableId;
    this.hand = hand;
    this.root = h("section", { class: "audit-screen" });
  }

  async mount(screen) {
    replace(screen, this.root);
    this.app.setTitle(t("audit.title", { number: this.hand }));
    replace(this.root, h("p", { class: "panel muted" }, t("audit.checking")));
    let audit;
    try {
      audit = await this.app.api.audit(this.tableId, this.hand);
    } catch (err) {
      replace(this.root, h("p", { class: "panel" }, errorText(err)));
      return;
    }
    replace(this.root, this.verdict(audit), this.deals(audit),
      h("section", { class: "panel audit-extra", id: "audit-extra" }));
  }

  verdict(audit) {
    const checks = Object.entries(audit.checks || {});
    return h("section", { class: `panel verdict ${audit.verified ? "ok" : "bad"}`, id: "audit",
      dataset: { verified: String(audit.verified) } },
    h("strong", { class: "verdict-head" }, audit.verified ? t("audit.verified") : t("audit.failed")),
    h("ul", { class: "checks" }, checks.map(([name, ok]) => h("li", {
      class: ok ? "ok" : "bad", dataset: { check: name } },
    h("span", { class: "mark", "aria-hidden": "true" }, ok ? "✓" : "✗"),
    h("span", {}, CHECKS[name] ? t(CHECKS[name]) : name)))));
  }

  deals(audit) {
    return (audit.deals || []).map((d) => h("section", { class: "panel deal", dataset: { deal: d.deal } },
      h("h3", {}, d.deal > 1 ? t("audit.svara_deal", { number: d.deal - 1 }) : t("audit.first_deal")),
      h("dl", {},
        h("dt", {}, t("audit.commitment")), h("dd", {}, h("code", { dir: "ltr", translate: "no" }, d.commitment)),
        h("dt", {}, t("audit.seed")), h("dd", {}, h("code", { dir: "ltr", translate: "no" }, d.seed))),
      h("p", { class: "muted" }, t("audit.deck_order")),
      h("div", { class: "deck", dir: "ltr" }, (d.deck || []).map((c) => card(c, "small")))));
  }
}
