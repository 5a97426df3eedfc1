// The felt: seats around an oval in the order of play (clockwise, you at the bottom, the
// same in every language: play goes clockwise whichever way the text runs), the pot in the
// middle with the hand's phase, and the commitment behind an info button.
//
// A score is shown only beside cards shown face up on this screen: a score is derived from
// the cards, so where the cards are hidden so is the score (tests check every score shown
// against the faces shown).
import { hand } from "./cards.js";
import { h, who } from "./dom.js";
import { DEAL_MS, dealAge } from "./motion.js";
import { num, t } from "./i18n.js";
import { outcome, reasonText, seatNames } from "./panels.js";

const PHASES = { blind: "phase.blind", betting: "phase.betting", svara_join: "phase.svara",
  settled: "phase.settled" };

/** Where seat `n` sits, in % of the felt: `mine` at the bottom, the next to play on its
 *  left, and so on clockwise. */
function place(n, mine, max) {
  const offset = mine === null ? n : (n - mine + max) % max;
  const angle = Math.PI / 2 + (2 * Math.PI * offset) / max;
  const [rx, ry] = max > 6 ? [38, 40] : [37, 33];
  return { x: 50 + rx * Math.cos(angle), y: 50 + ry * Math.sin(angle) };
}

/** The same order on a wide, low felt (landscape, desktop): seats evenly spaced along the
 *  oval's rim (as drawn, about 1.6 times as wide as high), so none sit on each other where
 *  the rim turns. */
function placeWide(n, mine, max) {
  const offset = mine === null ? n : (n - mine + max) % max;
  const [rx, ry] = max > 6 ? [41, 35] : [36, 32];
  const steps = 720;
  const point = (i) => {
    const angle = Math.PI / 2 + (2 * Math.PI * i) / steps;
    return [1.6 * rx * Math.cos(angle), ry * Math.sin(angle)];
  };
  const lengths = [0];
  for (let i = 1; i <= steps; i++) {
    const [a, b] = [point(i - 1), point(i)];
    lengths.push(lengths[i - 1] + Math.hypot(b[0] - a[0], b[1] - a[1]));
  }
  const want = (lengths[steps] * offset) / max;
  const i = lengths.findIndex((l) => l >= want);
  const angle = Math.PI / 2 + (2 * Math.PI * i) / steps;
  return { x: 50 + rx * Math.cos(angle), y: 50 + ry * Math.sin(angle) };
}

/** A seat's place as style: left/top on a tall felt, --wx/--wy on a wide one (app.css);
 *  kept once worked out (the replayer draws the felt at every step). */
const PLACES = new Map();
function at(n, mine, max) {
  const key = `${n}:${mine}:${max}`;
  if (!PLACES.has(key)) PLACES.set(key, placeAt(n, mine, max));
  const { pos, style } = PLACES.get(key);
  return { pos, style: { ...style } };
}

function placeAt(n, mine, max) {
  const pos = place(n, mine, max);
  const wide = placeWide(n, mine, max);
  return { pos, style: { left: `${pos.x}%`, top: `${pos.y}%`,
    "--wx": `${wide.x.toFixed(2)}%`, "--wy": `${wide.y.toFixed(2)}%` } };
}

function tags(s, handView, justWon) {
  const out = [];
  if (justWon) out.push(h("span", { class: "tag won" }, t("seat.won")));
  if (s.sat_out) out.push(h("span", { class: "tag out", dataset: { why: "sat_out" } }, t("seat.sat_out")));
  else if (s.timed_out) out.push(h("span", { class: "tag warn", dataset: { why: "timed_out" } }, t("seat.timed_out")));
  else if (s.folded) out.push(h("span", { class: "tag" }, t("seat.folded")));
  else if (handView && handView.phase !== "settled" && !s.in_hand) {
    out.push(h("span", { class: "tag" }, t("seat.waiting")));
  }
  if (s.blind && !s.folded) out.push(h("span", { class: "tag blind" }, t("seat.blind")));
  // (cards face up say more than "looked", and leave the seat low enough for its neighbours)
  if (s.looked && !s.folded && handView?.phase !== "settled" && !s.cards?.length) {
    out.push(h("span", { class: "tag" }, t("seat.looked")));
  }
  return out;
}

/** One seat. `deal` animates its cards in when the deal is new. */
function seatEl(s, v, { isMe, place, deal, winners }) {
  const pos = place.pos;
  const hv = v.hand;
  const live = hv && hv.phase !== "settled";
  const turn = live && hv.turn === s.seat;
  const classes = ["seat"];
  if (isMe) classes.push("me");
  if (turn) classes.push("turn");
  if (s.folded) classes.push("folded");
  if (live && !s.in_hand && !s.folded) classes.push("out");
  // where the chips it put in sit: between the seat and the pot
  classes.push(pos.x > 66 ? "east" : pos.x < 34 ? "west" : pos.y < 50 ? "north" : "south");
  const justWon = hv?.phase === "settled" && winners.has(s.seat);
  if (justWon) classes.push("won");
  if (hv?.phase === "svara_join" && hv.svara?.tied.includes(s.seat)) classes.push("tied");
  const dealtIn = Boolean(hv) && (s.in_hand || s.folded);
  const showCards = s.cards && s.cards.length;
  const cards = hand(showCards ? s.cards : null, {
    dealt: dealtIn && !s.folded && hv.phase !== "settled", deal: deal && dealtIn ? deal : null });
  // --dx/--dy: from this seat to the middle of the felt, where the deal starts
  const style = { ...place.style,
    "--dx": `${((50 - pos.x) * 1).toFixed(1)}cqw`, "--dy": `${((50 - pos.y) * 1).toFixed(1)}cqh` };
  return h("div", { class: classes.join(" "), style, dataset: { seat: s.seat } },
    hv && hv.dealer === s.seat
      ? h("span", { class: "dealer", title: t("seat.dealer"), "aria-label": t("seat.dealer") },
        t("seat.dealer_badge")) : null,
    h("div", { class: "name" }, who(s.name)),
    h("div", { class: "stack", dataset: { stack: s.stack } }, num(s.stack)),
    cards && h("div", { class: "seat-cards" }, cards,
      // A score is not a bet: a labelled badge on the cards it comes from, never a gold chip
      // (the chips a seat put in sit beside it). Your own is in the action bar.
      showCards && !isMe && s.score !== null && s.score !== undefined
        ? h("div", { class: "score-badge", dataset: { scoreSeat: s.seat }, title: t("seat.score") },
          h("small", {}, t("seat.score_label")), " ", h("b", {}, num(s.score))) : null),
    h("div", { class: "tags" }, tags(s, hv, justWon)),
    s.put_in && live ? h("div", { class: "put", title: t("seat.put_in") }, num(s.put_in)) : null,
    turn ? h("div", { class: "clock seat-clock", dataset: { deadline: hv.deadline ?? "" } }) : null);
}

/** A settled hand's result in the middle of the felt, where no bar covers it, from the view
 *  itself (so a page that saw only the end of the hand shows it too): who won, how much,
 *  why. It stays until the next hand starts. (`#pot`: the winners' chips fly from it.) */
function settledResult(v, stake) {
  const hv = v.hand;
  if (hv.phase !== "settled" || !hv.result) return null;
  const r = hv.result;
  const { headline, detail, iWon } = outcome(r, seatNames(v), v.you?.seat ?? null, stake);
  return h("div", { class: `pot felt-result${iWon ? " mine" : ""}`, id: "pot",
    dataset: { hand: hv.number } },
  h("strong", { class: "felt-headline", id: "felt-result" }, headline),
  h("span", { class: "felt-why" }, detail || reasonText(r.reason)));
}

/** During the svara window: the tie and its clock, on the felt beside the tied hands (the
 *  fee is on the join button and in the svara panel). */
function svaraNote(sv, v) {
  const score = v.seats.find((s) => s.seat === sv.tied[0])?.score;
  return h("div", { class: "felt-svara", id: "felt-svara" },
    score !== null && score !== undefined ? h("span", {}, t("felt.svara_tie", { score })) : null,
    h("span", { class: "clock", dataset: { deadline: sv.deadline ?? "" } }));
}

/**
 * The felt for view `v`. `dealKey` is set when this deal was seen being dealt (animate it);
 * `onInfo` opens the commitment; `stake` is what the viewer put into a settled hand, if known.
 */
export function felt(v, options) {
  const { className, parts } = feltParts(v, options);
  return h("div", { class: className, id: "felt" }, parts.map((p) => p.build()));
}

/**
 * The felt for view `v` (as `felt` takes it) in its parts, in order: the middle, then each
 * place around the oval. Each part has a `key` naming everything it is drawn from, so a part
 * whose key has not changed draws the same (the replayer draws only the parts a step
 * changes), and `build()` draws it; a seat's part has its `seat` number.
 */
export function feltParts(v, { dealKey = null, onInfo, stake } = {}) {
  const hv = v.hand;
  const max = (v.settings && v.settings.max_seats) || Math.max(2, v.seats.length);
  const mine = v.you?.seat ?? null;
  const bySeat = new Map(v.seats.map((s) => [s.seat, s]));
  const winners = new Set(hv?.result?.winner_seats || []);
  const age = dealKey ? dealAge(dealKey) : Infinity;
  const dealing = age < DEAL_MS + 400;
  // Cards go out one at a time, clockwise from the dealer's left, three rounds.
  const order = [];
  if (hv) {
    for (let i = 1; i <= max; i++) {
      const seat = bySeat.get((hv.dealer + i) % max);
      if (seat && (seat.in_hand || seat.folded)) order.push(seat.seat);
    }
  }
  const step = order.length ? DEAL_MS / (3 * order.length) : 0;
  // (a key names only what its part reads: the turn's deadline, the pot and the phase, which
  // change at most steps, are in the keys of the middle and of the seat whose turn it is)
  const svara = hv?.phase === "svara_join" ? hv.svara : null;
  const parts = [{ key: JSON.stringify([hv && [hv.phase, hv.pot, hv.deal, hv.number, hv.result, svara],
    stake, mine, hv?.result || svara ? v.seats.map((s) => [s.seat, s.name, s.score]) : null]),
  build: () => center(v, { onInfo, stake }) }];
  const around = (n) => hv && [hv.phase === "settled", hv.dealer === n, hv.turn === n,
    hv.turn === n ? hv.deadline : null, Boolean(svara?.tied.includes(n))];
  for (let n = 0; n < max; n++) {
    const seat = bySeat.get(n);
    if (!seat) {
      parts.push({ key: `empty:${n}:${mine}:${max}`, build: () => h("div",
        { class: "seat empty", style: at(n, mine, max).style }, t("seat.empty")) });
      continue;
    }
    const deal = dealing ? { age, order: order.indexOf(n), count: order.length, step } : null;
    parts.push({ seat: n, key: JSON.stringify([n, mine, max, seat, around(n), winners.has(n), deal]),
      build: () => seatEl(seat, v, { isMe: n === mine, place: at(n, mine, max), deal, winners }) });
  }
  return { className: max > 6 ? "felt many" : "felt", parts };
}

/** The middle of the felt: the pot (or the settled hand's result), the phase, the svara's
 *  tie, the hand's number and the commitment's button. */
function center(v, { onInfo, stake }) {
  const hv = v.hand;
  return h("div", { class: "felt-center" },
    hv ? [
      settledResult(v, stake) || h("div", { class: "pot", id: "pot" }, h("small", {}, t("felt.pot")),
        h("strong", { dataset: { pot: hv.pot } }, num(hv.pot))),
      hv.phase === "settled" && hv.result ? null
        : h("div", { class: "phase", id: "phase" }, t(PHASES[hv.phase] || "phase.settled")),
      hv.phase === "svara_join" && hv.svara ? svaraNote(hv.svara, v) : null,
      h("div", { class: "hand-no" },
        h("span", {}, hv.deal > 1 ? t("felt.hand_svara", { number: hv.number })
          : t("felt.hand", { number: hv.number })),
        h("button", { type: "button", class: "info", dataset: { action: "info" },
          "aria-label": t("fair.button"), title: t("fair.button"), onclick: onInfo },
        h("span", { "aria-hidden": "true" }, "i"))),
    ] : h("div", { class: "phase", id: "phase" }, t("felt.waiting")));
}
