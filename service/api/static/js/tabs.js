// The lobby's tabs: the tables, the tournaments (tournaments.js) and the leaders
// (leaders.js). Each tab is a screen of its own; switching replaces the page in the browser's
// history rather than adding one, so "back" from a tab still leaves the app.
import { h } from "./dom.js";
import { t } from "./i18n.js";

const TABS = [
  ["tables", "", "tourney.tab_tables"],
  ["tournaments", "?screen=tournaments", "tourney.tab_tournaments"],
  ["leaders", "?screen=leaders", "leaders.tab"],
];

/** The row of tabs with `current` selected. */
export function lobbyTabs(app, current) {
  return h("nav", { class: "tabs", role: "tablist" }, TABS.map(([name, query, key]) => h("button", {
    type: "button", role: "tab", class: name === current ? "tab on" : "tab",
    "aria-selected": String(name === current), dataset: { tab: name },
    onclick: () => { if (name !== current) app.switchTab(query); },
  }, t(key))));
}
