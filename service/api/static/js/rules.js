// The rules screen: static/rules/<lang>.html, written fresh in each language from
// docs/RULES.md (English when a language has none). The fragment is our own file, but it is still read as
// data: parsed inertly, only the tags and classes the rules use are kept, and every
// `<span class="card">7c</span>` becomes a card face like the ones on the table.
import { card, CARD } from "./cards.js";
import { h, replace } from "./dom.js";
import { language, t } from "./i18n.js";

const TAGS = new Set(["SECTION", "H2", "H3", "P", "UL", "OL", "LI", "TABLE", "THEAD", "TBODY",
  "TR", "TH", "TD", "STRONG", "EM", "SPAN"]);
const CLASSES = /^(card|cards|suit-[cdhs]|scores|hand|svara|time|chips|fairness)$/;

async function fragment(lang) {
  for (const code of lang === "en" ? ["en"] : [lang, "en"]) {
    const resp = await fetch(`rules/${code}.html`).catch(() => null);
    if (resp && resp.ok) return resp.text();
  }
  return null;
}

/** A copy of `node` with only the allowed tags (others keep their text) and classes. */
function clean(node) {
  if (node.nodeType === Node.TEXT_NODE) return document.createTextNode(node.textContent);
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const kids = [...node.childNodes].map(clean).filter(Boolean);
  if (node.tagName === "SPAN" && node.classList.contains("card")
      && CARD.test(node.textContent.trim())) {
    return card(node.textContent.trim(), "small");
  }
  if (!TAGS.has(node.tagName)) return kids.length ? h("span", {}, kids) : null;
  // A section's own name (cards, scores, svara …) is kept as part-<name>, so it never meets
  // the page's own classes of those names.
  const section = node.tagName === "SECTION";
  const classes = [...node.classList].filter((c) => CLASSES.test(c))
    .map((c) => (section ? `part-${c}` : c)).join(" ");
  return h(node.tagName.toLowerCase(), { class: classes || null }, kids);
}

export class RulesScreen {
  constructor(app) {
    this.app = app;
    this.root = h("article", { class: "rules panel", id: "rules" });
  }

  async mount(screen) {
    replace(screen, this.root);
    this.app.setTitle(t("rules.title"));
    const lang = language();
    const text = await fragment(lang);
    if (text === null) {
      replace(this.root, h("p", {}, t("rules.missing")));
      return;
    }
    const doc = new DOMParser().parseFromString(`<body>${text}</body>`, "text/html");
    this.root.dataset.lang = lang;
    replace(this.root, [...doc.body.childNodes].map(clean).filter(Boolean));
    for (const table of this.root.querySelectorAll("table")) {
      const wrap = h("div", { class: "table-scroll" });
      table.replaceWith(wrap);
      wrap.append(table);
    }
  }
}
