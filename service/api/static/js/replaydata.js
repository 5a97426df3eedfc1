// The replayer's data, no DOM: the server's steps of a settled hand (GET .../replay) held to
// this device's own replay of the hand's stored events (the export, fair.js): at every step
// the pot, every stack and whose turn it is, re-derived here, and every failed check of the
// file at the version where it broke. And the "open cards": every seat's cards at every deal,
// from the decks this device rebuilt itself from the revealed seeds.
import { dealHands, score, traceExport, verifyExport } from "./fair.js";

const LIVE = new Set(["blind", "betting"]);

/** Where the server's picture at `step` and this device's (`own`, a traceExport entry)
 *  differ: [{what: "pot"|"stack"|"turn"|"version"|"type", seat?, server, own}]. */
export function differences(step, own) {
  if (!own) return [{ what: "version", server: step.version, own: null }];
  const out = [];
  if (own.version !== step.version) out.push({ what: "version", server: step.version, own: own.version });
  if (own.type !== step.event?.type) out.push({ what: "type", server: step.event?.type, own: own.type });
  const hv = step.view?.hand;
  // (a settled hand's pot is paid out: its result says what it was)
  const pot = hv?.phase === "settled" ? hv.result?.pot : hv?.pot;
  if (hv && pot !== undefined && pot !== own.pot) out.push({ what: "pot", server: pot, own: own.pot });
  for (const s of step.view?.seats || []) {
    const mine = own.stacks[String(s.seat)];
    if (mine !== undefined && mine !== s.stack) {
      out.push({ what: "stack", seat: s.seat, server: s.stack, own: mine });
    }
  }
  if (hv && LIVE.has(hv.phase) && own.turn !== undefined && (hv.turn ?? null) !== own.turn) {
    out.push({ what: "turn", server: hv.turn ?? null, own: own.turn });
  }
  return out;
}

/** Each deal's cards by seat ({deal: {"<seat>": [c, c, c]}}) from the rebuilt decks:
 *  `reports` verifyExport's deals, `trace` traceExport's steps (who was dealt in). */
export function openCards(reports, trace) {
  const players = new Map();
  for (const s of trace) {
    if ((s.type === "hand_started" || s.type === "svara_deal_started") && s.deal !== null) {
      players.set(s.deal, s.participants);
    }
  }
  const out = {};
  for (const r of reports || []) {
    const seats = players.get(r.deal);
    if (!seats || !Array.isArray(r.deck) || r.deck.length !== 32) continue;
    const hands = dealHands(r.deck, seats.length);
    out[r.deal] = Object.fromEntries(seats.map((seat, i) => [String(seat), hands[i]]));
  }
  return out;
}

/** The view of a step with every dealt seat's cards face up (the deal's rebuilt cards). */
export function openView(view, dealt, scoring) {
  const hv = view.hand;
  const cards = hv ? dealt[hv.deal] : null;
  if (!cards) return view;
  return { ...view, seats: view.seats.map((s) => {
    const mine = cards[String(s.seat)];
    if (!mine || !(s.in_hand || s.folded)) return s;
    return { ...s, cards: mine, score: score(mine, scoring), opened: !(s.cards && s.cards.length) };
  }) };
}

/** The scoring options of a table's settings, as fair.js takes them. */
export function scoringOf(settings) {
  return { jokerPair: settings?.joker_pair || "sum", natural777: Number(settings?.natural_777 || 34) };
}

/** The step of `version`; for a version no step has (an event removed there, or past the
 *  hand's end) the step where it would be; for one before the hand, the first. */
export function stepAt(steps, version, index = null) {
  const known = index ? index.get(version) : steps.findIndex((s) => s.version === version);
  if (known !== undefined && known >= 0) return known;
  const after = steps.findIndex((s) => s.version > version);
  if (after >= 0) return after;
  return steps.length ? steps.length - 1 : null;
}

/** Where each svara deal starts: [{deal, index}] for deal 1 and every svara deal. */
export function dealStarts(steps) {
  const out = [];
  steps.forEach((s, index) => {
    if (s.event.type === "hand_started") out.push({ deal: 1, index });
    else if (s.event.type === "svara_deal_started") out.push({ deal: s.event.data.deal, index });
  });
  return out;
}

/**
 * Everything this device finds in the export `doc` beside the server's `steps`: its own
 * verdict (fair.js verifyExport), its trace, each step's differences and failures, the open
 * cards. `problem`: why the file could not be read (then nothing else is known).
 */
export async function crossCheck(steps, doc) {
  const out = { verdict: null, trace: [], marks: steps.map(() => ({ diffs: [], failures: [] })),
    dealt: {}, problem: null, extra: [] };
  if (!globalThis.crypto?.subtle) {
    out.problem = "no_crypto";
    return out;
  }
  try {
    out.verdict = await verifyExport(doc);
    out.trace = await traceExport(doc);
  } catch (err) {
    out.problem = err.message;
    out.refused = { code: err.code, params: err.params }; // the screens word it (fairwords.js)
    return out;
  }
  const byVersion = new Map(out.trace.map((s) => [s.version, s]));
  steps.forEach((step, i) => { out.marks[i].diffs = differences(step, byVersion.get(step.version)); });
  const index = new Map(steps.map((s, i) => [s.version, i]));
  for (const f of out.verdict.failures) {
    const at = stepAt(steps, f.version, index);
    if (at === null) out.extra.push(f);
    else out.marks[at].failures.push(f);
  }
  // The file may begin before the hand (the settlement that published its commitment): only
  // an event inside the hand's versions that the server's steps lack is a disagreement.
  const seen = new Set(steps.map((s) => s.version));
  const [first, last] = [steps[0]?.version ?? 0, steps.at(-1)?.version ?? 0];
  for (const s of out.trace) {
    if (s.version >= first && s.version <= last && !seen.has(s.version)) {
      out.extra.push({ check: "steps", version: s.version, reason: s.type });
    }
  }
  out.dealt = openCards(out.verdict.deals, out.trace);
  return out;
}
