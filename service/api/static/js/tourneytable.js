// A tournament's table says so: the strip over the felt (its level and ante, the ante the
// next hand pays when the level just rose, a way to the tournament), and in the action bar
// what replaces the buy-in: a spectator cannot sit down, a player out of chips is out of the
// tournament (no rebuy), and leaving forfeits rather than cashing out (docs/API.md).
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The strip for view `v`, or null at a cash table. */
export function tourneyStrip(v, app) {
  const tn = v.tournament;
  if (!tn) return null;
  return h("div", { class: "t-strip", id: "t-strip", dataset: { level: tn.level } },
    h("span", { class: "t-strip-text" },
      h("strong", { class: "t-level" }, t("tourney.level_ante", { level: tn.level, ante: v.settings?.ante })),
      tn.next_ante ? [" · ", h("span", { class: "t-next" }, t("tourney.next_ante", { ante: tn.next_ante }))]
        : null,
      h("small", { class: "t-strip-note muted" }, t("tourney.table_note"))),
    h("button", { type: "button", class: "link small", dataset: { action: "tournament" },
      onclick: () => app.openTournament(tn.tournament_id) }, t("tourney.details")));
}

/** The table's subtitle: the level and the ante instead of a cash table's stakes. */
export function tourneySubtitle(v) {
  return t("tourney.level_ante", { level: v.tournament.level, ante: v.settings?.ante });
}

/** What the bar shows at a tournament table instead of a buy-in: `why` "watching" or "out". */
export function tourneyBarNote(v, why) {
  return h("p", { class: "bar-status t-note", id: "t-note", dataset: { why } },
    why === "out" ? t("tourney.you_are_out") : t("tourney.watching"));
}
