// Why a check of a hand's file failed, in the viewer's language: fair.js gives each failure a
// code and its values (REASON_CODES), the catalogs word each code ("fair.reason.<code>"),
// and this fills in the values -- a seat as its player's name, cards as the deck names them.
// A code no catalog words (a newer fair.js) reads as a general sentence, never as English.
import { num, t } from "./i18n.js";

// (the keys written whole, so tests/webapp/test_catalogs.py finds every one the code uses)
const KEYS = {
  out_of_order: "fair.reason.out_of_order", chain_unknown: "fair.reason.chain_unknown",
  chain_down: "fair.reason.chain_down", prev_not_hex: "fair.reason.prev_not_hex",
  hash_mismatch: "fair.reason.hash_mismatch", context_link: "fair.reason.context_link",
  ends_early: "fair.reason.ends_early", no_place: "fair.reason.no_place",
  event_incomplete: "fair.reason.event_incomplete", other_table: "fair.reason.other_table",
  other_hand: "fair.reason.other_hand", pin_hash: "fair.reason.pin_hash",
  pin_commitment: "fair.reason.pin_commitment", v2_unpublished: "fair.reason.v2_unpublished",
  commitment_other: "fair.reason.commitment_other",
  no_seed_revealed: "fair.reason.no_seed_revealed", seed_commitment: "fair.reason.seed_commitment",
  revealed_commitment: "fair.reason.revealed_commitment",
  seed_recorded: "fair.reason.seed_recorded", seed_drawn: "fair.reason.seed_drawn",
  seeds_mismatch: "fair.reason.seeds_mismatch", mix_mismatch: "fair.reason.mix_mismatch",
  deal_not_started: "fair.reason.deal_not_started", deal_incomplete: "fair.reason.deal_incomplete",
  no_cards_dealt: "fair.reason.no_cards_dealt", unknown_algorithm: "fair.reason.unknown_algorithm",
  no_seed: "fair.reason.no_seed", seats_mismatch: "fair.reason.seats_mismatch",
  wrong_cards: "fair.reason.wrong_cards", looked_other: "fair.reason.looked_other",
  shown_other: "fair.reason.shown_other", score_wrong: "fair.reason.score_wrong",
  svara_no_showdown: "fair.reason.svara_no_showdown", svara_tied: "fair.reason.svara_tied",
  winners_wrong: "fair.reason.winners_wrong", negative_pay: "fair.reason.negative_pay",
  overdrawn: "fair.reason.overdrawn", settings_differ: "fair.reason.settings_differ",
  cash_out: "fair.reason.cash_out", ante_change: "fair.reason.ante_change",
  ante_wrong: "fair.reason.ante_wrong", short_ante: "fair.reason.short_ante",
  antes_pot: "fair.reason.antes_pot", blind_order: "fair.reason.blind_order",
  call_wrong: "fair.reason.call_wrong", raise_wrong: "fair.reason.raise_wrong",
  svara_pot: "fair.reason.svara_pot", fee_rule: "fair.reason.fee_rule",
  join_fee: "fair.reason.join_fee", settled_pot: "fair.reason.settled_pot",
  payout: "fair.reason.payout",
};
// numbers that name an event, a hand or a version of the chain, not an amount: as written
const IDS = new Set(["version", "expected_version", "found", "last", "hand", "number", "published",
  "chain", "floor", "deal"]);
const isolate = (text) => `\u2068${text}\u2069`; // a name or cards inside a sentence of either direction

function value(name, v, names) {
  const seatName = (seat) => names[seat] ?? t("seat.unknown", { seat: Number(seat) + 1 });
  if (name === "seat") return isolate(seatName(v));
  if (Array.isArray(v)) {
    if (!v.length) return "—";
    if (v.every((x) => typeof x === "string")) return isolate(v.join(" "));
    return v.map((s) => isolate(seatName(s))).join(", ");
  }
  if (typeof v === "number") return IDS.has(name) ? String(v) : num(v);
  return v === undefined || v === null ? "—" : String(v);
}

/** The words for failure `f` ({code, params}); `names` maps a seat to its player's name. */
export function reasonText(f, names = {}) {
  const key = f && Object.prototype.hasOwnProperty.call(KEYS, f.code) ? KEYS[f.code] : null;
  if (!key) return t("fair.reason.unknown");
  const params = Object.fromEntries(Object.entries(f.params || {})
    .map(([name, v]) => [name, value(name, v, names)]));
  return t(key, params);
}

const REFUSED = {
  not_json: "fair.malformed.not_json", not_export: "fair.malformed.not_export",
  format_version: "fair.malformed.format_version", file_damaged: "fair.malformed.file_damaged",
  event_damaged: "fair.malformed.event_damaged",
};

/** Why fair.js refused a file: the words for the Error it threw ({code, params}). */
export function refusedText(err) {
  const key = err && Object.prototype.hasOwnProperty.call(REFUSED, err.code) ? REFUSED[err.code]
    : "fair.malformed.unknown";
  const params = Object.fromEntries(Object.entries(err?.params || {})
    .map(([name, v]) => [name, value(name, v, {})]));
  return t(key, params);
}

/** Every code this module words (tests hold them to fair.js's REASON_CODES and
 *  MALFORMED_CODES). */
export const WORDED = Object.freeze(Object.keys(KEYS));
export const WORDED_REFUSALS = Object.freeze(Object.keys(REFUSED));
