// The words around the felt: what is happening now and what it costs (blind chain, who must
// double, the svara and its fee, the next hand), the last hand's result with every shown
// hand and its score, and why a player was folded or sat out.
import { hand } from "./cards.js";
import { h, who } from "./dom.js";
import { chips, list, num, t, tNodes } from "./i18n.js";

export function seatNames(v) {
  const names = {};
  for (const s of v?.seats || []) names[s.seat] = s.name;
  return names;
}

function nameOf(names, seat) {
  return names[seat] ?? t("seat.unknown", { seat: seat + 1 });
}

function clock(deadline) {
  return h("span", { class: "clock", dataset: { deadline: deadline ?? "" } });
}

/** One or two sentences: what is happening now, and what the player to act may do. */
export function explain(v) {
  const hv = v.hand;
  const s = v.settings || {};
  const unit = s.bet_unit ?? s.ante;
  const names = seatNames(v);
  const me = v.you?.seat ?? null;
  const able = v.seats.filter((x) => !x.sat_out && x.stack >= s.ante).length;
  if (!hv || hv.phase === "settled") {
    if (able >= 2 && hv?.deadline) return tNodes("explain.next_hand", { time: clock(hv.deadline) });
    if (able >= 2) return [t("explain.starting")];
    return [t("explain.waiting_players", { chips: chips(s.ante) })];
  }
  const turn = hv.turn;
  const mine = turn !== null && turn === me;
  const name = turn !== null ? who(nameOf(names, turn)) : null;
  if (hv.phase === "blind") {
    const next = s.blind_raise === "at_least_double" ? "explain.blind_next_at_least" : "explain.blind_next";
    const first = hv.last_blind === 0;
    const key = first ? (mine ? "explain.blind_first_you" : "explain.blind_first")
      : (mine ? `${next}_you` : next);
    // The blind chain so far: each blind bettor's stake, smallest (first) to largest (last).
    const chain = v.seats.filter((x) => x.blind && !x.folded).map((x) => x.put_in)
      .sort((a, b) => a - b);
    return [
      ...(chain.length > 1 ? [t("explain.blind_chain", { chain: chain.map(num).join(" → ") }), " "] : []),
      ...tNodes(KEYS[key], { name, chips: chips(first ? unit : 2 * hv.last_blind),
        last: chips(hv.last_blind) })];
  }
  if (hv.phase === "betting") {
    const player = v.seats.find((x) => x.seat === turn);
    if (hv.must_double && player && !player.blind) {
      return tNodes(mine ? "explain.must_double_you" : "explain.must_double",
        { name, chips: chips(2 * hv.last_blind), last: chips(hv.last_blind) });
    }
    if (hv.level === 0) {
      return tNodes(mine ? "explain.open_you" : "explain.open", { name, chips: chips(unit) });
    }
    const owe = Math.max(0, hv.level - (player?.put_in ?? 0));
    return tNodes(mine ? "explain.call_you" : "explain.call",
      { name, chips: chips(owe), level: chips(hv.level) });
  }
  if (hv.phase === "svara_join" && hv.svara) {
    return tNodes("explain.svara", { fee: chips(hv.svara.fee), time: clock(hv.svara.deadline) });
  }
  return [];
}

// Template-built keys, spelled out so every key the code uses appears in it as a literal.
const KEYS = {
  "explain.blind_first": "explain.blind_first",
  "explain.blind_first_you": "explain.blind_first_you",
  "explain.blind_next": "explain.blind_next",
  "explain.blind_next_you": "explain.blind_next_you",
  "explain.blind_next_at_least": "explain.blind_next_at_least",
  "explain.blind_next_at_least_you": "explain.blind_next_at_least_you",
};

/** The svara join window: the tied hands side by side, who is in free, the fee, the clock. */
export function svaraPanel(v) {
  const sv = v.hand?.phase === "svara_join" ? v.hand.svara : null;
  if (!sv) return null;
  const names = seatNames(v);
  const bySeat = new Map(v.seats.map((s) => [s.seat, s]));
  const me = v.you?.seat ?? null;
  const tied = sv.tied.map((seat) => {
    const s = bySeat.get(seat);
    const shown = s?.cards && s.cards.length;
    return h("div", { class: "tied", dataset: { seat } },
      h("div", { class: "name" }, who(nameOf(names, seat))),
      shown ? hand(s.cards, { size: "medium" }) : null,
      shown && s.score !== null ? h("div", { class: "score", dataset: { scoreSeat: seat } },
        num(s.score)) : null);
  });
  const score = bySeat.get(sv.tied[0])?.score;
  let mine = null;
  if (me !== null && sv.tied.includes(me)) mine = t("svara.you_free");
  else if (me !== null && sv.joined.includes(me)) mine = t("svara.you_joined");
  else if (me !== null && sv.answered.includes(me)) mine = t("svara.you_skipped");
  else if (me !== null && sv.eligible.includes(me)) mine = t("svara.you_may_join", { fee: chips(sv.fee) });
  else if (me !== null) mine = t("svara.you_cannot");
  const joined = sv.joined.map((seat) => nameOf(names, seat));
  return h("section", { class: "panel svara", id: "svara" },
    h("div", { class: "svara-head" },
      h("strong", { class: "svara-title" }, t("svara.title")),
      clock(sv.deadline)),
    h("p", {}, score !== null && score !== undefined
      ? t("svara.tied_at", { score }) : t("svara.tied")),
    h("div", { class: "tied-row", dir: "ltr" }, tied),
    h("p", {}, tNodes("svara.free", { names: list(sv.tied.map((seat) => nameOf(names, seat))) })),
    h("p", { class: "fee" }, tNodes("svara.fee", { fee: h("strong", {}, chips(sv.fee)) })),
    h("p", { class: "muted" }, t("svara.answered", { answered: sv.answered.length,
      eligible: sv.eligible.length }),
    joined.length ? [" · ", t("svara.joined", { names: list(joined) })] : null),
    mine && h("p", { class: "mine-note" }, mine));
}

const REASONS = { last_player: "result.last_player", showdown: "result.showdown",
  split: "result.split", svara_walkover: "result.walkover" };

/** Why the hand ended as it did, in a sentence. */
export function reasonText(reason) {
  return t(REASONS[reason] || "result.showdown");
}

/**
 * Who won what, in words: `r` has winners, amounts, pot (a history entry or a view's result),
 * `stake` what `me` put into the hand (undefined: not known here, e.g. a page opened after
 * the hand began). A winner is told their gain (what they won less their own stake) and the
 * pot beside it; without the stake, the pot and no gain (the pot holds the winner's own chips).
 */
export function outcome(r, names, me = null, stake = undefined) {
  const amounts = r.amounts || {};
  const won = Object.values(amounts).reduce((a, b) => a + b, 0) || r.pot;
  const seats = (r.winners || r.winner_seats || []).map(Number);
  const winners = seats.map((seat) => nameOf(names, seat));
  const iWon = me !== null && seats.includes(me);
  const known = typeof stake === "number";
  let headline;
  let detail = null;
  if (iWon && seats.length === 1) {
    headline = known ? t("result.you_won", { chips: chips(won - stake) })
      : t("result.you_won_pot", { chips: chips(won) });
    if (known) detail = t("result.pot_stake", { pot: chips(won), stake: chips(stake) });
  } else if (seats.length === 1) {
    headline = tNodes("result.won", { name: who(winners[0]), chips: chips(won) });
  } else {
    headline = tNodes("result.split_between", { names: list(winners), chips: chips(won) });
    if (iWon && known) {
      detail = t("result.your_share", { chips: chips((amounts[me] ?? 0) - stake),
        stake: chips(stake) });
    }
  }
  return { headline, detail, iWon };
}

/**
 * The result of a settled hand, in the shape of GET /hands (a history entry): winners and
 * what they won, why, every shown hand with its score, svaras, timeouts, and the ways to
 * check it (`onAudit`) and watch it again (`onReplay`). `stake`: what `me` put in, when this
 * page saw the whole hand.
 */
export function resultPanel(r, { me = null, stake, onAudit, onShare, onHistory, onReplay,
  compact = false } = {}) {
  if (!r) return null;
  const names = r.names || {};
  const { headline, detail, iWon } = outcome(r, names, me, stake);
  const last = (r.showdowns || []).at(-1);
  const winnerSet = new Set((r.winners || []).map(String));
  const shownBlock = (r.showdowns || []).map((sd, i, all) => h("div", { class: "showdown" },
    all.length > 1 ? h("small", { class: "muted" }, i === 0 ? t("result.first_deal")
      : t("result.svara_deal", { number: i })) : null,
    Object.entries(sd.hands).sort((a, b) => b[1].score - a[1].score).map(([seat, shown]) =>
      h("div", { class: `shown${sd === last && winnerSet.has(seat) ? " winner" : ""}`,
        dataset: { seat } },
      h("span", { class: "name" }, who(nameOf(names, Number(seat)))),
      hand(shown.cards, { size: "small" }),
      h("b", { class: "score", dataset: { scoreSeat: seat } }, num(shown.score))))));
  const capped = (r.showdowns || []).some((sd) => sd.capped);
  const svaras = (r.svaras || []).map((sv) => h("p", { class: "muted svara-line" },
    sv.joined.length
      ? t("result.svara_line", { names: list(sv.tied.map((seat) => nameOf(names, seat))),
        joined: list(sv.joined.map((seat) => nameOf(names, seat))), fee: chips(sv.fee) })
      : t("result.svara_line_none", { names: list(sv.tied.map((seat) => nameOf(names, seat))) })));
  const timeouts = (r.timeouts || []).map((to) => h("p", { class: "muted timeout" },
    tNodes(to.action === "fold" ? "result.timeout_fold"
      : to.action === "pass" ? "result.timeout_pass" : "result.timeout_svara",
    { name: who(nameOf(names, to.seat)) })));
  return h("section", { class: `panel result${iWon ? " mine" : ""}`, id: compact ? null : "result",
    dataset: { hand: r.number } },
  h("div", { class: "result-head" },
    h("small", { class: "muted" }, t("result.hand", { number: r.number })),
    h("strong", { class: "headline" }, headline),
    detail ? h("small", { class: "pot-line" }, detail) : null),
  h("p", { class: "why" }, reasonText(r.reason)),
  capped ? h("p", { class: "capped", id: "capped" }, t("result.capped")) : null,
  shownBlock, svaras, timeouts,
  h("div", { class: "result-links" },
    onReplay && h("button", { type: "button", class: "link", dataset: { action: "replay" },
      onclick: onReplay }, t("replay.watch")),
    onAudit && h("button", { type: "button", class: "link", dataset: { action: "audit" },
      onclick: onAudit }, t("result.check")),
    onShare && h("button", { type: "button", class: "link", dataset: { action: "share" },
      onclick: onShare }, t("share.hand")),
    onHistory && h("button", { type: "button", class: "link", dataset: { action: "history" },
      onclick: onHistory }, t("result.history"))));
}

/** Why this player is not playing: folded by the clock, sat out, out of chips. */
export function myNotice(v, { busted }) {
  const me = v.seats.find((s) => s.seat === v.you?.seat);
  if (!me) return null;
  if (me.sat_out) {
    return h("p", { class: "notice warn", id: "notice", dataset: { why: "sat_out" } },
      t("notice.sat_out"));
  }
  if (me.timed_out) {
    return h("p", { class: "notice warn", id: "notice", dataset: { why: "timed_out" } },
      t("notice.timed_out"));
  }
  if (busted) {
    return h("p", { class: "notice", id: "notice", dataset: { why: "busted" } },
      t("notice.busted", { chips: chips(v.settings.ante) }));
  }
  return null;
}

/** The last thing that happened, in a line ("Ana raised to 40"). */
export function eventLine(event, names) {
  const d = event.data || {};
  const name = d.seat !== undefined ? who(nameOf(names, d.seat)) : null;
  switch (event.type) {
    case "blind_placed": return tNodes("line.blind", { name, chips: chips(d.amount) });
    case "passed": return tNodes("line.passed", { name });
    case "looked": return tNodes("line.looked", { name });
    case "called": return tNodes("line.called", { name, chips: chips(d.amount) });
    case "raised": return tNodes("line.raised", { name, chips: chips(d.level) });
    case "folded": return tNodes(d.left ? "line.left_hand" : "line.folded", { name });
    case "timed_out":
      return tNodes(d.action === "fold" ? "line.timeout_fold" : d.action === "pass"
        ? "line.timeout_pass" : "line.timeout_svara", { name });
    case "svara_joined": return tNodes("line.svara_joined", { name, chips: chips(d.fee) });
    case "svara_skipped": return tNodes("line.svara_skipped", { name });
    case "sat_out": return tNodes("line.sat_out", { name });
    case "returned": return tNodes("line.returned", { name });
    case "player_seated": return tNodes("line.seated", { name: who(d.name) });
    case "player_left": return tNodes("line.left", { name });
    case "svara_started": return [t("line.svara")];
    case "showdown": return [d.capped ? t("line.showdown_capped") : t("line.showdown")];
    default: return null;
  }
}
