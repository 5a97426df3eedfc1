// The rules screen, written fresh from RULES.md (the project's authority on every point).
import { h } from "./dom.js";

const combos = [
  ["Three sevens", "34 — nothing beats it (the joker counts as a seven)"],
  ["Three of a kind", "three times the card: three aces 33, three tens or queens 30"],
  ["Joker and a pair", "11 plus the pair: joker with two kings is 31"],
  ["Two sevens", "23"],
  ["Two aces", "22"],
  ["Joker and two of a suit", "11 plus both cards"],
  ["Joker and anything", "11 plus the better of the other two"],
  ["Otherwise", "the total of your strongest suit — even a single card"],
];

export function rulesScreen() {
  return h("section", { class: "rules panel" },
    h("h2", {}, "How to play Svara"),
    h("p", {}, "Svara is a quick Bulgarian betting game with a 32-card deck (sevens up to aces). "
      + "Everyone gets three cards; the best-scoring hand takes the pot."),
    h("h3", {}, "Card values"),
    h("p", {}, "7, 8 and 9 count their number. Ten, jack, queen and king count 10, an ace 11. "
      + "The seven of clubs is the joker (marked ★) and counts 11."),
    h("h3", {}, "What a hand scores"),
    h("p", {}, "Your hand scores its best combination:"),
    h("table", { class: "combos" }, combos.map(([name, value]) =>
      h("tr", {}, h("th", {}, name), h("td", {}, value)))),
    h("p", { class: "muted" }, "Any other pair earns nothing by itself. Equal scores are equal: "
      + "there is no tie-break."),
    h("h3", {}, "A hand"),
    h("ol", {},
      h("li", {}, "Everyone in the hand pays the ante; three cards each are dealt face down."),
      h("li", {}, "Blind round: starting left of the dealer, a player who has not looked may bet "
        + "blind (the first blind at least one bet unit, each next one double the last) or pass. "
        + "The first pass ends the blind round."),
      h("li", {}, "Betting: in turn, call the current level, raise it, or fold. There is no "
        + "checking. You may raise three times per hand at most. After blinds, the first seen "
        + "bet must be at least twice the last blind."),
      h("li", {}, "Look at your cards whenever you like — but after looking you cannot go blind."),
      h("li", {}, "If everyone else folds, the last player wins without showing. Otherwise the "
        + "remaining hands are shown and the highest score wins."),
    ),
    h("h3", {}, "Svara: the tie"),
    h("p", {}, "When the best score is shared, the pot stays on the table and a new deal decides "
      + "it. The tied players play on for free; anyone else at the table may buy in for the pot "
      + "divided by the number of tied players."),
    h("h3", {}, "Time and fairness"),
    h("p", {}, "Each turn has a clock. When it runs out the game passes or folds for you; two "
      + "timeouts in a row sit you out until you come back. Every deck is fixed and committed "
      + "to before the deal and revealed afterwards, so any hand can be checked."),
  );
}
