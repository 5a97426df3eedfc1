// Cards as the API writes them (`7c`, `Td`, `Ah`) turned into small readable faces.
import { h } from "./dom.js";

const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RANKS = { T: "10" };
const NAMES = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };

export function card(code, size = "small") {
  const rank = code[0];
  const suit = code[1];
  const red = suit === "d" || suit === "h";
  const joker = code === "7c";
  return h("span", {
    class: `card ${size}${red ? " red" : ""}${joker ? " joker" : ""}`,
    dataset: { card: code },
    title: `${RANKS[rank] || rank} of ${NAMES[suit] || suit}${joker ? " (the joker)" : ""}`,
  }, h("b", {}, RANKS[rank] || rank), h("i", {}, SUITS[suit] || suit));
}

export function cardBack(size = "small") {
  return h("span", { class: `card back ${size}`, title: "face down" });
}

/** Three cards: faces when known, backs while hidden, nothing when the seat has none. */
export function hand(cards, { dealt, size = "small" } = {}) {
  if (cards && cards.length) return h("span", { class: "cards" }, cards.map((c) => card(c, size)));
  if (dealt) return h("span", { class: "cards" }, [cardBack(size), cardBack(size), cardBack(size)]);
  return null;
}
