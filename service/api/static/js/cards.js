// Cards as the API writes them (`7c`, `Td`, `Ah`) turned into small readable faces. Cards
// read left to right in every language (a hand is a row of cards, not a sentence).
import { h } from "./dom.js";
import { t } from "./i18n.js";

const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RANKS = { T: "10" };
const SUIT_NAMES = { c: "card.clubs", d: "card.diamonds", h: "card.hearts", s: "card.spades" };
const RANK_NAMES = { J: "card.jack", Q: "card.queen", K: "card.king", A: "card.ace" };
export const CARD = /^[789TJQKA][cdhs]$/;

function cardName(code) {
  const rank = RANK_NAMES[code[0]] ? t(RANK_NAMES[code[0]]) : RANKS[code[0]] || code[0];
  const name = t("card.name", { rank, suit: t(SUIT_NAMES[code[1]]) });
  return code === "7c" ? t("card.joker_name", { card: name }) : name;
}

export function card(code, size = "small", extra = {}) {
  const rank = code[0];
  const suit = code[1];
  const red = suit === "d" || suit === "h";
  const joker = code === "7c";
  const name = cardName(code);
  return h("span", {
    class: `card ${size}${red ? " red" : ""}${joker ? " joker" : ""}`,
    dataset: { card: code }, title: name, role: "img", "aria-label": name, dir: "ltr", ...extra,
  }, h("b", {}, RANKS[rank] || rank), h("i", {}, SUITS[suit] || suit));
}

export function cardBack(size = "small", extra = {}) {
  return h("span", { class: `card back ${size}`, title: t("card.face_down"), role: "img",
    "aria-label": t("card.face_down"), ...extra });
}

/** Three cards: faces when known, backs while hidden, nothing when the seat has none.
 *  `deal` ({age, order, count}) animates backs and faces in from the middle of the felt. */
export function hand(cards, { dealt, size = "small", deal = null } = {}) {
  const style = (i) => {
    if (!deal) return undefined;
    const delay = (deal.order + i * deal.count) * deal.step - deal.age;
    return { animationDelay: `${Math.round(delay)}ms` };
  };
  const cls = deal ? "cards dealing" : "cards";
  if (cards && cards.length) {
    return h("span", { class: cls, dir: "ltr" }, cards.map((c, i) => card(c, size, { style: style(i) })));
  }
  if (dealt) {
    return h("span", { class: cls, dir: "ltr" }, [0, 1, 2].map((i) => cardBack(size, { style: style(i) })));
  }
  return null;
}
