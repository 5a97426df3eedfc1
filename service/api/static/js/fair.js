// fair.js -- the browser's own check of a hand, so a player need not trust the server: decks,
// commitments, the hash chain and a whole exported hand, recomputed with WebCrypto
// (HMAC-SHA256, SHA-256). An ES module with no imports and no DOM use: the audit screen
// builds on it.
//
// It follows the published algorithms (docs/FAIRNESS.md "Decks", docs/CHAIN.md) and
// docs/RULES.md ("Hand score"), and gives the same verdicts as `svara verify FILE`
// (service/verify.py); tests hold it to the test vectors of docs/FAIRNESS.md "Decks" and to
// both Python checkers on tampered exports.
//
// API (every function is async unless marked; hex strings are lowercase):
//   deckV1(seedHex, tableId, hand, deal)              -> ["8h", "7s", ...] (32 cards)
//   deckV2(seedHex, tableId, hand, deal, clientSeeds) -> the v2 deck; clientSeeds {seat: seed}
//                                                        of the players dealt in ({} for none)
//   mixOf(clientSeeds)                                -> hex sha256 of "seat:seed" lines
//   commitmentOf(seedHex)                             -> hex sha256 of the seed's bytes
//   chainLink(prevHashHex, entry)                     -> the entry's hash, where entry is an
//        export entry {chain: 1|2, at: "<stored time text>", raw: "<stored bytes>"} (or
//        raw_b64); chain 1 = sha256(prev || bytes), 2 = sha256(prev || "svara-chain-v2\n" ||
//        at || "\n" || bytes), prev as its 32 raw bytes
//   dealHands(deck, players)        (sync)           -> [[c0, cN, c2N], ...] in playing order
//   score(cards, {jokerPair, natural777}) (sync)     -> the hand's score
//        (docs/RULES.md "Hand score")
//   verifyExport(exportJson, pins)                    -> {ok, results, failures, deals}
//        exportJson: the object GET /api/tables/{id}/hands/{n}/export answers (or its text);
//        pins (all optional) -- what the page saved earlier, which the export must not
//        contradict:
//          {newestHash: {version, hash},     // the newest event hash the page has seen
//           hashes: {"<version>": hash},     // any other event hashes it kept
//           commitments: {"<hand>:<deal>": commitment}}  // each deal's full commitment, seen
//                                                        // before the deal
//        results: one per check, in this order, [{check, ok, version?, code?, params?,
//          reason?, chainVersion?}] -- check one of "chain", "pins", "commitment", "seeds",
//          "deck", "cards", "scores", "winner", "chips" (the first failure's event version and
//          why: `code` one of REASON_CODES, `params` its values -- {version, seat, deal, cards,
//          ...}, seats as the events number them -- and `reason` the same in English);
//          "pins" is there only when pins were given; a pinned version outside the export is
//          not a contradiction (the result says so in `note`).
//        failures: every failure [{check, version, code, params, reason, chainVersion?}];
//        deals: [{deal, algorithm, commitment, seed, clientSeeds, mix, deck, cards}] as rebuilt.
//        A file that is not an export (or is damaged beyond reading, or holds an event that
//        does not fit EVENT_SCHEMA) throws an Error whose message names what is wrong, with
//        `code` (one of MALFORMED_CODES) and `params` ({version} of the event refused).
//   traceExport(exportJson)                           -> [{version, type, data, pot, stacks,
//        folded, deal, turn, participants}]: the same replay as verifyExport's, the state
//        after each event of the file (stacks {"<seat>": chips}; turn from the events' own
//        `turn`, deadlines, and showdowns); no verdict (verifyExport gives that)
//   EVENT_SCHEMA (a constant)                         -> every event type's fields (see below)
//   REASON_CODES (a constant)                         -> every failure's possible `code`
//   MALFORMED_CODES (a constant)                      -> every refused file's possible `code`

const ZERO_HASH = "0".repeat(64);
const V1 = "hmac-sha256-fy-v1";
const V2 = "hmac-sha256-fy-v2";
const CHECKS = ["chain", "pins", "commitment", "seeds", "deck", "cards", "scores", "winner",
  "chips"];
// Why a check failed, as a code the screens word in the viewer's language (their catalogs'
// "fair.reason.<code>", with the failure's `params` as placeholders); by check:
export const REASON_CODES = Object.freeze([
  // chain
  "out_of_order", "chain_unknown", "chain_down", "prev_not_hex", "hash_mismatch", "context_link",
  "ends_early", "no_place", "event_incomplete", "other_table", "other_hand",
  // pins
  "pin_hash", "pin_commitment",
  // commitment
  "v2_unpublished", "commitment_other", "no_seed_revealed", "seed_commitment",
  "revealed_commitment", "seed_recorded", "seed_drawn",
  // seeds
  "seeds_mismatch", "mix_mismatch",
  // deck
  "deal_not_started", "deal_incomplete", "no_cards_dealt", "unknown_algorithm", "no_seed",
  "seats_mismatch", "wrong_cards",
  // cards, scores, winner
  "looked_other", "shown_other", "score_wrong", "svara_no_showdown", "svara_tied", "winners_wrong",
  // chips
  "negative_pay", "overdrawn", "settings_differ", "cash_out", "ante_change", "ante_wrong",
  "short_ante", "antes_pot", "blind_order", "call_wrong", "raise_wrong", "svara_pot", "fee_rule",
  "join_fee", "settled_pot", "payout",
]);
// Why a file is refused (the Error verifyExport and traceExport throw carries it as `code`,
// with `params`), worded by the screens' catalogs as "fair.malformed.<code>":
export const MALFORMED_CODES = Object.freeze(["not_json", "not_export", "format_version",
  "file_damaged", "event_damaged"]);
const VALUES = { 7: 7, 8: 8, 9: 9, T: 10, J: 10, Q: 10, K: 10, A: 11 };
const JOKER = "7c";
const encoder = new TextEncoder();

// -- what each event carries: events/table.py, field by field ----------------------------------
//
// EVENT_SCHEMA: event type -> field -> [kind, required] (not required: the field has a default
// and may be left out). Kinds: "int", "str", "bool", "float"; ["list", kind]; ["tuple", kind,
// ...]; ["dict", key kind, value kind] (JSON object; "int" keys written as decimal text);
// ["nullable", kind] (or null); ["one_of", value, ...]; ["struct", {field: [kind, required]}].
// Every event read is held to it (a field missing, of the wrong kind or unknown: the file is
// refused), and tests/fair/test_schema.py holds it to events/table.py, so it cannot drift.

const REQUIRED = true, OPTIONAL = false;
const CARDS = ["tuple", "str", "str", "str"];
const SEATS = ["list", "int"];
const PHASE = ["one_of", "betting", "blind"];
const PLAYER = { seat: ["int", REQUIRED], user_id: ["int", REQUIRED] };
// the fields of an event that may also hand the turn on (TurnHandover)
const TURN = { turn: [["nullable", "int"], OPTIONAL], deadline: [["nullable", "float"], OPTIONAL],
  phase: [["nullable", PHASE], OPTIONAL] };
const SETTINGS = ["struct", {
  ante: ["int", REQUIRED],
  bet_unit: [["nullable", "int"], OPTIONAL],
  max_seats: ["int", OPTIONAL],
  min_buy_in: [["nullable", "int"], OPTIONAL],
  max_buy_in: [["nullable", "int"], OPTIONAL],
  turn_seconds: ["int", OPTIONAL],
  svara_join_seconds: [["nullable", "int"], OPTIONAL],
  next_hand_seconds: ["int", OPTIONAL],
  blind_raise: [["one_of", "at_least_double", "double"], OPTIONAL],
  max_raises: ["int", OPTIONAL],
  dealer: [["one_of", "rotate", "winner"], OPTIONAL],
  svara: [["one_of", "play", "split"], OPTIONAL],
  svara_join_fee: [["one_of", "ante", "pot_share"], OPTIONAL],
  rake_percent: ["int", OPTIONAL],
  joker_pair: [["one_of", "substitute", "sum"], OPTIONAL],
  natural_777: [["one_of", 30, 33, 34], OPTIONAL],
}];
export const EVENT_SCHEMA = {
  table_created: { table_id: ["str", REQUIRED], settings: [SETTINGS, REQUIRED],
    created_by: ["int", REQUIRED], created_at: ["float", OPTIONAL],
    next_commitment: ["str", OPTIONAL], idle_close_seconds: ["float", OPTIONAL],
    name: ["str", OPTIONAL], private: ["bool", OPTIONAL], tournament_id: ["str", OPTIONAL],
    group_chat_id: [["nullable", "int"], OPTIONAL] },
  seed_drawn: { commitment: ["str", REQUIRED], seed: ["str", REQUIRED] },
  client_seed_set: { ...PLAYER, client_seed: ["str", REQUIRED] },
  player_seated: { ...PLAYER, name: ["str", REQUIRED], buy_in: ["int", REQUIRED],
    transfer_id: ["str", REQUIRED] },
  player_left: { ...PLAYER, cashed_out: ["int", REQUIRED], transfer_id: ["str", REQUIRED],
    at: ["float", OPTIONAL] },
  hand_started: { number: ["int", REQUIRED], dealer: ["int", REQUIRED],
    participants: [SEATS, REQUIRED], commitment: ["str", REQUIRED], seed: ["str", REQUIRED],
    algorithm: ["str", OPTIONAL] },
  antes_paid: { ante: ["int", REQUIRED], seats: [SEATS, REQUIRED], pot: ["int", REQUIRED],
    short: [["nullable", ["dict", "int", "int"]], OPTIONAL] },
  ante_changed: { ante: ["int", REQUIRED], level: ["int", REQUIRED] },
  cards_dealt: { ...TURN, deal: ["int", REQUIRED], cards: [["dict", "int", CARDS], REQUIRED],
    algorithm: ["str", OPTIONAL], client_seeds: [["nullable", ["dict", "int", "str"]], OPTIONAL],
    mix: ["str", OPTIONAL] },
  blind_placed: { ...TURN, ...PLAYER, amount: ["int", REQUIRED] },
  passed: { ...TURN, ...PLAYER },
  looked: { ...TURN, ...PLAYER, cards: [CARDS, REQUIRED] },
  called: { ...TURN, ...PLAYER, amount: ["int", REQUIRED], level: ["int", REQUIRED] },
  raised: { ...TURN, ...PLAYER, amount: ["int", REQUIRED], level: ["int", REQUIRED] },
  folded: { ...TURN, ...PLAYER, left: ["bool", OPTIONAL] },
  turn_deadline_set: { seat: ["int", REQUIRED], deadline: ["float", REQUIRED],
    phase: [PHASE, OPTIONAL] },
  timed_out: { ...TURN, ...PLAYER, action: [["one_of", "fold", "pass", "skip_svara"], REQUIRED] },
  showdown: { deal: ["int", REQUIRED],
    hands: [["dict", "int", ["struct", { cards: [CARDS, REQUIRED], score: ["int", REQUIRED] }]],
      REQUIRED],
    capped: ["bool", OPTIONAL] },
  svara_started: { tied: [SEATS, REQUIRED], fee: ["int", REQUIRED], eligible: [SEATS, REQUIRED],
    join_deadline: ["float", REQUIRED], pot: ["int", REQUIRED],
    next_commitment: ["str", OPTIONAL] },
  svara_joined: { ...PLAYER, fee: ["int", REQUIRED] },
  svara_skipped: PLAYER,
  svara_deal_started: { deal: ["int", REQUIRED], participants: [SEATS, REQUIRED],
    commitment: ["str", REQUIRED], seed: ["str", REQUIRED] },
  hand_settled: { number: ["int", REQUIRED], winners: [SEATS, REQUIRED],
    amounts: [["dict", "int", "int"], REQUIRED], pot: ["int", REQUIRED], rake: ["int", REQUIRED],
    reason: [["one_of", "last_player", "showdown", "split", "svara_walkover"], REQUIRED],
    seeds: [["list", ["struct", { deal: ["int", REQUIRED], commitment: ["str", REQUIRED],
      seed: ["str", REQUIRED] }]], REQUIRED],
    next_hand_at: ["float", REQUIRED], next_dealer: ["int", REQUIRED],
    next_commitment: ["str", OPTIONAL] },
  sat_out: { ...TURN, ...PLAYER, reason: [["one_of", "left", "timeouts"], OPTIONAL] },
  returned: PLAYER,
  table_closed: { reason: [["one_of", "idle"], OPTIONAL], idle_seconds: ["float", OPTIONAL] },
};
const CARD = /^[789TJQKA][cdhs]$/;
const isInt = (v) => Number.isInteger(v) && Math.abs(v) < 2 ** 53;
const isDict = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const SCALARS = {
  int: isInt,
  str: (v) => typeof v === "string",
  bool: (v) => typeof v === "boolean",
  float: (v) => typeof v === "number" && Number.isFinite(v),
};
const isIntKey = (k) => /^[0-9]{1,3}$/.test(k);
const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

// What is wrong with value `v` for `kind` ("" when nothing); `path` names it.
function kindProblem(kind, v, path) {
  const wrong = `\`${path}\` has the wrong type`;
  if (typeof kind === "string") return SCALARS[kind](v) ? "" : wrong;
  const [tag, ...args] = kind;
  if (tag === "nullable") return v === null ? "" : kindProblem(args[0], v, path);
  if (tag === "one_of") {
    return args.some((x) => typeof v === typeof x && v === x) ? ""
      : `${wrong}: none of ${args.join(", ")}`;
  }
  if (tag === "struct") return fieldsProblem(args[0], v, `${path}.`);
  if (tag === "list" || tag === "tuple") {
    if (!Array.isArray(v) || (tag === "tuple" && v.length !== args.length)) return wrong;
    for (let i = 0; i < v.length; i++) {
      const bad = kindProblem(tag === "list" ? args[0] : args[i], v[i], `${path}[${i}]`);
      if (bad) return bad;
    }
    return "";
  }
  if (tag === "dict") {
    if (!isDict(v)) return wrong;
    for (const [k, x] of Object.entries(v)) {
      if (args[0] === "int" && !isIntKey(k)) {
        return `\`${path}\` has a key that is no seat number: ${JSON.stringify(k)}`;
      }
      const bad = kindProblem(args[1], x, `${path}.${k}`);
      if (bad) return bad;
    }
    return "";
  }
  throw new Error(`unknown kind ${JSON.stringify(kind)}`);
}

// What is wrong with object `obj` for a struct's `fields` ("" when nothing).
function fieldsProblem(fields, obj, prefix = "") {
  if (!isDict(obj)) return `\`${prefix.replace(/\.$/, "")}\` is not an object`;
  for (const [name, [kind, required]] of Object.entries(fields)) {
    if (!has(obj, name)) {
      if (required) return `missing \`${prefix}${name}\``;
      continue;
    }
    const bad = kindProblem(kind, obj[name], `${prefix}${name}`);
    if (bad) return bad;
  }
  const unknown = Object.keys(obj).filter((k) => !has(fields, k)).sort();
  if (unknown.length) return `\`${prefix}${unknown[0]}\` is no field this verifier knows`;
  return "";
}

// What is wrong with a decoded event ("" when nothing): its type, its fields, and (beyond their
// kinds) every card a real card's name.
function eventProblem(data) {
  if (!isDict(data)) return "the stored bytes are not an event (a JSON object)";
  const fields = typeof data.type === "string" && has(EVENT_SCHEMA, data.type)
    ? EVENT_SCHEMA[data.type] : null;
  if (!fields) return `unknown event type ${JSON.stringify(data.type)}`;
  const { type: _type, ...rest } = data;
  const bad = fieldsProblem(fields, rest);
  if (bad) return bad;
  let cards = [];
  if (data.type === "looked") cards = [data.cards];
  else if (data.type === "cards_dealt") cards = Object.values(data.cards);
  else if (data.type === "showdown") cards = Object.values(data.hands).map((h) => h.cards);
  for (const hand of cards) {
    if (hand.some((c) => !CARD.test(c))) return `${hand.join(" ")} are not three cards of the deck`;
  }
  return "";
}

// -- bytes ------------------------------------------------------------------------------------

function hexToBytes(hex) {
  if (typeof hex !== "string" || hex.length % 2 || /[^0-9a-fA-F]/.test(hex)) {
    throw new Error("not hex");
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

function entryBytes(entry) {
  if (typeof entry.raw === "string") return encoder.encode(entry.raw);
  if (typeof entry.raw_b64 === "string") {
    return Uint8Array.from(atob(entry.raw_b64), (c) => c.charCodeAt(0));
  }
  throw new Error(`entry ${entry.version}: missing raw`);
}

// -- the published algorithms -------------------------------------------------------------------

export async function commitmentOf(seedHex) {
  return bytesToHex(await sha256(hexToBytes(seedHex)));
}

function seatsOf(clientSeeds) {
  return Object.keys(clientSeeds || {}).map(Number).sort((a, b) => a - b);
}

export async function mixOf(clientSeeds) {
  const lines = seatsOf(clientSeeds).map((seat) => `${seat}:${clientSeeds[seat]}`);
  return bytesToHex(await sha256(encoder.encode(lines.join("\n"))));
}

async function shuffle(seedHex, prefix) {
  const seed = hexToBytes(seedHex);
  if (seed.length !== 32) throw new Error("a seed is 32 bytes");
  const key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" },
    false, ["sign"]);
  const deck = [];
  for (const rank of "789TJQKA") for (const suit of "cdhs") deck.push(rank + suit);
  let words = [];
  let block = 0;
  for (let i = 31; i >= 1; i--) {
    const n = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % n);
    let x;
    for (;;) {
      if (!words.length) {
        const mac = new DataView(await crypto.subtle.sign("HMAC", key,
          encoder.encode(`${prefix}${block}`)));
        words = Array.from({ length: 8 }, (_, k) => mac.getUint32(4 * k, false));
        block += 1;
      }
      x = words.shift();
      if (x < limit) break;
    }
    const j = x % n;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

export async function deckV1(seedHex, tableId, hand, deal) {
  return shuffle(seedHex, `${tableId}:${hand}:${deal}:`);
}

export async function deckV2(seedHex, tableId, hand, deal, clientSeeds) {
  return shuffle(seedHex, `${tableId}:${hand}:${deal}:${await mixOf(clientSeeds)}:`);
}

async function deckWithMix(seedHex, tableId, hand, deal, mix) {
  return shuffle(seedHex, `${tableId}:${hand}:${deal}:${mix}:`);
}

export function dealHands(deck, players) {
  return Array.from({ length: players },
    (_, i) => [deck[i], deck[players + i], deck[2 * players + i]]);
}

export function score(cards, { jokerPair = "sum", natural777 = 34 } = {}) {
  const ranks = cards.map((c) => c[0]);
  const joker = cards.includes(JOKER);
  const count = (r) => ranks.filter((x) => x === r).length;
  const found = [];
  if (count("7") === 3) found.push(joker ? 34 : natural777);
  else if (new Set(ranks).size === 1) found.push(3 * VALUES[ranks[0]]);
  if (count("A") >= 2) found.push(22);
  if (count("7") >= 2) found.push(23);
  if (joker) {
    const [a, b] = cards.filter((c) => c !== JOKER);
    const va = VALUES[a[0]], vb = VALUES[b[0]];
    if (a[0] === b[0]) found.push(jokerPair === "sum" ? 11 + va + vb : 3 * va);
    if (a[1] === b[1]) found.push(11 + va + vb);
    found.push(11 + Math.max(va, vb));
  } else {
    const suits = {};
    for (const c of cards) suits[c[1]] = (suits[c[1]] || 0) + VALUES[c[0]];
    found.push(Math.max(...Object.values(suits)));
  }
  return Math.max(...found);
}

export async function chainLink(prevHashHex, entry) {
  const prev = hexToBytes(prevHashHex);
  const raw = entryBytes(entry);
  if (entry.chain === 1) return bytesToHex(await sha256(concat(prev, raw)));
  if (entry.chain === 2) {
    return bytesToHex(await sha256(concat(prev, encoder.encode(`svara-chain-v2\n${entry.at}\n`),
      raw)));
  }
  throw new Error(`unknown chain version ${entry.chain}`);
}

// -- an exported hand ----------------------------------------------------------------------------

function need(obj, key, type, where) {
  if (!obj || typeof obj !== "object" || !(key in obj)) throw new Error(`${where}: missing \`${key}\``);
  const value = obj[key];
  const ok = type === "array" ? Array.isArray(value)
    : type === "int" ? Number.isInteger(value) : typeof value === type;
  if (!ok) throw new Error(`${where}: \`${key}\` has the wrong type`);
  return value;
}

// A file this verifier refuses: `code` (one of MALFORMED_CODES) and `params` say why for the
// screens (their catalogs' "fair.malformed.<code>"); the message says it in English. The first
// code given stays.
function refused(err, code, params = {}) {
  if (err && typeof err === "object" && !err.code) { err.code = code; err.params = params; }
  return err;
}

function readEntry(obj, where, withPrev) {
  const version = need(obj, "version", "int", where);
  try {
    return readEntryFields(obj, `${where} (version ${version})`, withPrev, version);
  } catch (err) {
    throw refused(err, "event_damaged", { version });
  }
}

function readEntryFields(obj, where, withPrev, version) {
  if (typeof obj.raw !== "string" && typeof obj.raw_b64 !== "string") {
    throw new Error(`${where}: missing \`raw\``);
  }
  let data = null;
  try {
    data = JSON.parse(typeof obj.raw === "string" ? obj.raw
      : new TextDecoder().decode(entryBytes(obj)));
  } catch { data = null; }
  const type = need(obj, "type", "string", where);
  // Every event is held to the schema before any check reads it: what this verifier cannot read
  // whole, it does not vouch for.
  const problem = eventProblem(data);
  if (problem) throw new Error(`${where}: ${problem}`);
  if (data.type !== type) {
    throw new Error(`${where}: \`type\` is ${JSON.stringify(type)} but its bytes hold a ${JSON.stringify(data.type)}`);
  }
  return {
    version, type, at: need(obj, "at", "string", where),
    chain: need(obj, "chain", "int", where), hash: need(obj, "hash", "string", where),
    raw: obj.raw, raw_b64: obj.raw_b64,
    prevHash: withPrev ? need(obj, "prev_hash", "string", where) : null, data,
  };
}

function readExport(input) {
  try { return readExportFields(input); } catch (err) { throw refused(err, "file_damaged"); }
}

function readExportFields(input) {
  let doc = input;
  if (typeof input === "string") {
    try { doc = JSON.parse(input); } catch (e) {
      throw refused(new Error(`not JSON: ${e.message}`), "not_json");
    }
  }
  if (!doc || doc.format !== "svara-hand-export") {
    throw refused(new Error("not a svara-hand-export file (its `format` is missing or different)"),
      "not_export");
  }
  if (doc.format_version !== 1) {
    throw refused(new Error(`unknown format_version ${doc.format_version} (this reads 1)`),
      "format_version", { found: String(doc.format_version) });
  }
  const events = need(doc, "events", "array", "the file");
  if (!events.length) throw new Error("the file: `events` is empty");
  const seats = need(doc, "seats", "array", "the file");
  seats.forEach((seat, i) => {
    need(seat, "seat", "int", `seats[${i}]`);
    if (seat && typeof seat === "object" && "stack" in seat) need(seat, "stack", "int", `seats[${i}]`);
  });
  const context = doc.context === undefined ? [] : doc.context;
  if (!Array.isArray(context)) throw new Error("the file: `context` is not a list");
  const settings = need(doc, "settings", "object", "the file");
  const problem = fieldsProblem(SETTINGS[1], settings);
  if (problem) throw new Error(`the file's settings: ${problem}`);
  return {
    tableId: need(doc, "table_id", "string", "the file"),
    hand: need(doc, "hand", "int", "the file"),
    settings,
    seats, prevHash: need(doc, "prev_hash", "string", "the file"),
    events: events.map((e, i) => readEntry(e, `events[${i}]`, false)),
    context: context.map((e, i) => readEntry(e, `context[${i}]`, true)),
  };
}

class Findings {
  constructor() { this.failures = []; }
  /** A failed check at event `version`: `code` (one of REASON_CODES) and `params` say why
   *  in words any language can render (the screens' catalogs, "fair.reason.<code>");
   *  `reason` says it in English, with the values in it, for a file's reader or a console. */
  fail(check, version, code, params, reason, chainVersion) {
    if (!REASON_CODES.includes(code)) throw new Error(`no reason code ${JSON.stringify(code)}`);
    const f = { check, version, code, params: { version, ...params }, reason };
    if (chainVersion !== undefined && chainVersion !== null) f.chainVersion = chainVersion;
    this.failures.push(f);
  }
}

// What is wrong with a link of the chain (null when nothing): {code, params, reason}.
async function badLink(e, prev, floor) {
  const bad = (code, params, reason) => ({ code, params, reason });
  if (e.chain !== 1 && e.chain !== 2) {
    return bad("chain_unknown", { chain: e.chain }, `unknown chain version ${e.chain}`);
  }
  if (e.chain < floor) {
    return bad("chain_down", { chain: e.chain, floor },
      `chain version went down (v${e.chain} after v${floor})`);
  }
  let recomputed;
  try { recomputed = await chainLink(prev, e); } catch {
    return bad("prev_not_hex", {}, "the previous hash is not hex");
  }
  if (recomputed !== e.hash) {
    const what = e.chain === 1 ? "bytes" : "bytes and time";
    return bad("hash_mismatch", { chain: e.chain },
      `the stored hash does not match the event's ${what} (chain v${e.chain})`);
  }
  return null;
}

async function checkChain(x, f) {
  let prev = x.prevHash, floor = 1, expected = x.events[0].version;
  let broken = false;
  for (const e of x.events) {
    if (e.version !== expected) {
      f.fail("chain", expected, "out_of_order", { expected, found: e.version },
        `events out of order or missing: expected version ${expected}, `
        + `found ${e.version}`);
      broken = true;
      break;
    }
    const bad = await badLink(e, prev, floor);
    if (bad) { f.fail("chain", e.version, bad.code, bad.params, bad.reason, e.chain); broken = true; break; }
    prev = e.hash; floor = e.chain; expected += 1;
  }
  for (const e of x.context) {
    const bad = await badLink(e, e.prevHash, 1);
    if (bad) {
      f.fail("chain", e.version, "context_link", { link: bad.code }, `context entry: ${bad.reason}`,
        e.chain);
    }
  }
  const last = x.events[x.events.length - 1];
  if (last.type !== "hand_settled" || (last.data || {}).number !== x.hand) {
    f.fail("chain", last.version + 1, "ends_early", { last: last.version, hand: x.hand },
      `the export ends at version ${last.version} before hand `
      + `${x.hand} settles (events removed?)`);
  }
  return !broken;
}

function checkPins(x, pins, f) {
  const notes = [];
  const byVersion = new Map([...x.context, ...x.events].map((e) => [e.version, e]));
  const first = x.events[0].version, last = x.events[x.events.length - 1].version;
  const hashes = { ...(pins.hashes || {}) };
  if (pins.newestHash && Number.isInteger(pins.newestHash.version)) {
    hashes[pins.newestHash.version] = pins.newestHash.hash;
  }
  for (const key of Object.keys(hashes).map(Number).sort((a, b) => a - b)) {
    const e = byVersion.get(key);
    if (e === undefined) {
      notes.push(`version ${key} is ${key > last ? "after" : "before"} this export (${first}-`
        + `${last}): not checked here`);
    } else if (e.hash !== hashes[key]) {
      f.fail("pins", key, "pin_hash", {},
        `hash ${e.hash.slice(0, 16)}... differs from the one seen earlier `
        + `(${String(hashes[key]).slice(0, 16)}...): the log was rewritten`);
    }
  }
  for (const [key, pinned] of Object.entries(pins.commitments || {})) {
    const [hand, deal] = key.split(":");
    if (hand !== String(x.hand)) continue;
    for (const e of x.events) {
      const d = e.data || {};
      const isDeal = (e.type === "hand_started" && deal === "1" && d.number === x.hand)
        || (e.type === "svara_deal_started" && String(d.deal) === deal);
      if (isDeal && d.commitment !== pinned) {
        f.fail("pins", e.version, "pin_commitment", { deal: Number(deal) },
          `deal ${deal}'s commitment differs from the one seen before the deal`);
      }
    }
  }
  return notes;
}

// The hand followed event by event: pot, stacks, folds, seeds in effect, deals (the same checks,
// versions and order as service/verify.py).
class Replay {
  constructor(x, f) {
    this.x = x; this.f = f;
    const s = x.settings;
    this.ante = Number(s.ante || 0);
    this.pendingAnte = 0;
    this.rakePercent = Number(s.rake_percent || 0);
    this.scoring = { jokerPair: s.joker_pair || "sum", natural777: Number(s.natural_777 || 34) };
    this.svaraRule = s.svara || "play";
    this.feeRule = s.svara_join_fee || "pot_share";
    this.stacks = new Map(x.seats.map((seat) => [Number(seat.seat), Number(seat.stack || 0)]));
    this.clientSeeds = new Map();
    for (const e of [...x.context].sort((a, b) => a.version - b.version)) {
      if (e.type === "client_seed_set" && e.data) {
        this.clientSeeds.set(Number(e.data.seat), String(e.data.client_seed));
      }
    }
    this.deals = new Map();
    this.published = null; this.drawn = null;
    this.pot = 0; this.level = 0; this.putIn = new Map(); this.folded = new Set();
    this.deal = null; this.fee = 0; this.tied = []; this.joined = []; this.showdowns = [];
    this.seeds = new Map(); this.settled = null;
  }

  /** `onStep(e)` (optional) hears of each event once it is folded in: it reads the state and
   *  changes nothing, so the checks are the same with or without it. */
  run(onStep = null) {
    for (const e of this.x.events) {
      // (readExport held every event to the schema)
      const handler = this[`on_${e.type}`];
      if (typeof handler !== "function") {
        this.f.fail("chain", e.version, "no_place", { type: e.type }, `a ${e.type} has no place in a hand's record`);
        continue;
      }
      try { handler.call(this, e, e.data); } catch (err) {
        this.f.fail("chain", e.version, "event_incomplete", {}, `the event lacks what it must carry (${err.message})`);
      }
      if (onStep) onStep(e);
    }
  }

  publish(e, d) { if (d.next_commitment) { this.published = e; this.drawn = null; } }
  pay(e, seat, amount) {
    if (amount < 0) this.f.fail("chips", e.version, "negative_pay", { seat }, `seat ${seat} pays a negative amount`);
    this.pot += amount;
    if (this.stacks.has(seat)) {
      const left = this.stacks.get(seat) - amount;
      this.stacks.set(seat, left);
      if (left < 0) this.f.fail("chips", e.version, "overdrawn", { seat, amount, left: left + amount }, `seat ${seat} pays ${amount} with ${left + amount} left`);
    }
  }

  on_table_created(e, d) {
    if (d.table_id !== this.x.tableId) this.f.fail("chain", e.version, "other_table", {}, "table_created names another table");
    const stored = d.settings;
    if (!stored || typeof stored !== "object"
        || Object.entries(stored).some(([k, v]) => JSON.stringify(this.x.settings[k]) !== JSON.stringify(v))) {
      this.f.fail("chips", e.version, "settings_differ", {}, "the file's settings differ from the table's");
    }
    this.publish(e, d);
  }
  on_seed_drawn(e) { this.drawn = e; }
  on_client_seed_set(e, d) { this.clientSeeds.set(Number(d.seat), String(d.client_seed)); }
  on_player_seated(e, d) {
    this.stacks.set(Number(d.seat), Number(d.buy_in)); this.clientSeeds.delete(Number(d.seat));
  }
  on_player_left(e, d) {
    const seat = Number(d.seat);
    if (this.stacks.has(seat) && this.stacks.get(seat) !== d.cashed_out) {
      this.f.fail("chips", e.version, "cash_out", { seat, cashed: d.cashed_out, holds: this.stacks.get(seat) }, `seat ${seat} cashes out ${d.cashed_out} but holds ${this.stacks.get(seat)}`);
    }
    this.stacks.delete(seat); this.clientSeeds.delete(seat);
    this.tied = this.tied.filter((s) => s !== seat); this.joined = this.joined.filter((s) => s !== seat);
  }
  on_sat_out() {}
  on_returned() {}
  on_turn_deadline_set() {}
  on_passed() {}
  on_svara_skipped() {}

  newDeal(e, number, participants) {
    const deal = { deal: number, start: e, participants, published: this.published, drawn: this.drawn, dealt: null };
    this.published = null; this.drawn = null;
    this.deals.set(number, deal); this.deal = deal;
    this.level = 0; this.putIn = new Map(participants.map((s) => [s, 0])); this.folded = new Set();
    this.tied = []; this.joined = [];
  }
  on_hand_started(e, d) {
    if (d.number !== this.x.hand) {
      this.f.fail("chain", e.version, "other_hand", { number: d.number, hand: this.x.hand }, `hand ${d.number} starts inside hand ${this.x.hand}'s export`);
      return;
    }
    this.pot = 0;
    if (this.pendingAnte) { this.ante = this.pendingAnte; this.pendingAnte = 0; }
    this.newDeal(e, 1, d.participants.map(Number));
  }
  on_svara_deal_started(e, d) { this.newDeal(e, Number(d.deal), d.participants.map(Number)); }
  on_ante_changed(e, d) {
    // a tournament table's ante rises between hands; the antes after it pay the new one
    // it counts from the next hand dealt: a hand in play keeps its ante and svara fee
    if (!(Number(d.ante) > 0) || !(Number(d.level) >= 1)) {
      this.f.fail("chips", e.version, "ante_change", { ante: d.ante, level: d.level }, `an ante of ${d.ante} at level ${d.level}`);
    }
    this.pendingAnte = Number(d.ante);
  }
  on_antes_paid(e, d) {
    if (d.ante !== this.ante) this.f.fail("chips", e.version, "ante_wrong", { ante: d.ante, expected: this.ante }, `an ante of ${d.ante}; the table's is ${this.ante}`);
    const short = d.short || {};
    for (const s of d.seats) {  // a tournament stack below the ante pays all it has
      const paid = short[String(s)];
      if (paid !== undefined && !(paid >= 0 && paid < d.ante)) {
        this.f.fail("chips", e.version, "short_ante", { seat: s, paid, ante: d.ante }, `seat ${s} pays ${paid} of an ante of ${d.ante}`);
      }
      this.pay(e, Number(s), paid !== undefined ? Number(paid) : Number(d.ante));
    }
    if (d.pot !== this.pot) this.f.fail("chips", e.version, "antes_pot", { pot: d.pot, expected: this.pot }, `the pot after the antes is ${this.pot}, not ${d.pot}`);
  }
  on_cards_dealt(e, d) {
    const deal = this.deals.get(Number(d.deal));
    if (!deal) { this.f.fail("deck", e.version, "deal_not_started", { deal: d.deal }, `cards for deal ${d.deal}, which never started`); return; }
    deal.dealt = e;
    if ((d.algorithm || V1) === V2) {
      const named = d.client_seeds || {};
      const expected = {};
      for (const s of deal.participants) if (this.clientSeeds.has(s)) expected[s] = this.clientSeeds.get(s);
      const same = JSON.stringify(seatsOf(named).map((s) => [s, named[s]]))
        === JSON.stringify(seatsOf(expected).map((s) => [s, expected[s]]));
      if (!same) {
        this.f.fail("seeds", e.version, "seeds_mismatch", {}, `the players' seeds named at the deal ${JSON.stringify(named)} are not those recorded before it ${JSON.stringify(expected)}`);
      } else {
        deal.mixCheck = { e, named, mix: d.mix };
      }
    }
  }
  on_blind_placed(e, d) {
    const seat = Number(d.seat), amount = Number(d.amount);
    if ((this.putIn.get(seat) || 0) !== 0 || (amount <= this.level && this.level > 0)) {
      this.f.fail("chips", e.version, "blind_order", { seat, amount }, `a blind of ${amount} from seat ${seat} does not follow the bets before it`);
    }
    this.pay(e, seat, amount); this.putIn.set(seat, amount); this.level = amount;
  }
  on_looked(e, d) { this.seen(e, Number(d.seat), d.cards, "looks at", "looked_other"); }
  on_called(e, d) {
    const seat = Number(d.seat), amount = Number(d.amount), before = this.putIn.get(seat) || 0;
    if (d.level !== this.level || before + amount !== this.level) {
      this.f.fail("chips", e.version, "call_wrong", { seat, amount, call: this.level - before }, `seat ${seat} calls ${amount}: with ${before} in and the level at ${this.level} a call is ${this.level - before}`);
    }
    this.pay(e, seat, amount); this.putIn.set(seat, before + amount);
  }
  on_raised(e, d) {
    const seat = Number(d.seat), amount = Number(d.amount), level = Number(d.level);
    const before = this.putIn.get(seat) || 0;
    if (level <= this.level || before + amount !== level) {
      this.f.fail("chips", e.version, "raise_wrong", { seat, level, amount }, `seat ${seat} raises to ${level} paying ${amount} with ${before} in and the level at ${this.level}`);
    }
    this.pay(e, seat, amount); this.putIn.set(seat, before + amount); this.level = level;
  }
  on_folded(e, d) { this.folded.add(Number(d.seat)); }
  on_timed_out(e, d) { if (d.action === "fold") this.folded.add(Number(d.seat)); }
  seen(e, seat, cards, verb, code) {
    const dealt = this.deal && this.deal.dealt ? this.deal.dealt.data : null;
    const given = dealt && dealt.cards ? dealt.cards[String(seat)] : undefined;
    if (cards != null && (given === undefined || given === null
        || JSON.stringify(cards) !== JSON.stringify(given))) {
      this.f.fail("cards", e.version, code, { seat, cards, dealt: given || [] },
        `seat ${seat} ${verb} ${cards.join(" ")} but was dealt ${given ? given.join(" ") : "nothing"}`);
    }
  }
  on_showdown(e, d) {
    const hands = new Map(Object.entries(d.hands).map(([s, h]) => [Number(s), h]));
    for (const [seat, h] of [...hands].sort((a, b) => a[0] - b[0])) {
      this.seen(e, seat, h.cards, "shows", "shown_other");
      const right = score(h.cards, this.scoring);
      if (h.score !== right) {
        this.f.fail("scores", e.version, "score_wrong", { seat, cards: h.cards, score: h.score, expected: right }, `seat ${seat} shows ${h.cards.join(" ")} scored ${h.score}; the rules give ${right}`);
      }
    }
    this.showdowns.push([e, hands]);
  }
  best(hands) {
    const scores = [...hands].map(([s, h]) => [s, score(h.cards, this.scoring)]);
    const top = Math.max(...scores.map(([, v]) => v));
    return scores.filter(([, v]) => v === top).map(([s]) => s);
  }
  on_svara_started(e, d) {
    const tied = d.tied.map(Number);
    if (!this.showdowns.length) {
      this.f.fail("winner", e.version, "svara_no_showdown", {}, "a svara with no showdown before it");
    } else {
      const best = this.best(this.showdowns[this.showdowns.length - 1][1]);
      const same = JSON.stringify([...best].sort((a, b) => a - b)) === JSON.stringify([...tied].sort((a, b) => a - b));
      if (!same || best.length < 2 || this.svaraRule !== "play") {
        this.f.fail("winner", e.version, "svara_tied", { tied, best }, `a svara between ${JSON.stringify(tied)}; the showdown's best are ${JSON.stringify(best)} (svara rule ${this.svaraRule})`);
      }
    }
    if (d.pot !== this.pot) this.f.fail("chips", e.version, "svara_pot", { pot: d.pot, expected: this.pot }, `the svara's pot is ${d.pot}, not ${this.pot}`);
    const fee = this.feeRule === "ante" ? this.ante : Math.floor(this.pot / Math.max(1, tied.length));
    if (d.fee !== fee) this.f.fail("chips", e.version, "fee_rule", { fee: d.fee, expected: fee }, `a join fee of ${d.fee}; the rule gives ${fee}`);
    this.fee = Number(d.fee); this.tied = tied; this.joined = [];
    this.publish(e, d);
  }
  on_svara_joined(e, d) {
    const seat = Number(d.seat);
    if (d.fee !== this.fee) this.f.fail("chips", e.version, "join_fee", { seat, fee: d.fee, expected: this.fee }, `seat ${seat} joins for ${d.fee}; the fee is ${this.fee}`);
    this.pay(e, seat, Number(d.fee)); this.joined.push(seat);
  }
  on_hand_settled(e, d) {
    if (d.number === this.x.hand) {
      this.settle(e, d);
    } else {
      for (const [seat, amount] of Object.entries(d.amounts)) {
        if (this.stacks.has(Number(seat))) this.stacks.set(Number(seat), this.stacks.get(Number(seat)) + Number(amount));
      }
    }
    this.publish(e, d);
  }
  settle(e, d) {
    const winners = d.winners.map(Number);
    const amounts = new Map(Object.entries(d.amounts).map(([k, v]) => [Number(k), Number(v)]));
    const deal = this.deal;
    const sorted = (a) => JSON.stringify([...a].sort((p, q) => p - q));
    let expected = null;
    if (d.reason === "last_player") {
      expected = deal ? deal.participants.filter((s) => !this.folded.has(s)) : [];
    } else if (d.reason === "showdown" || d.reason === "split") {
      const best = this.showdowns.length ? this.best(this.showdowns[this.showdowns.length - 1][1]) : [];
      const fits = d.reason === "showdown" ? best.length === 1 : best.length >= 2 && this.svaraRule === "split";
      expected = fits ? best : null;
    } else if (d.reason === "svara_walkover") {
      expected = [...new Set([...this.tied, ...this.joined])];
    }
    if (expected === null || sorted(expected) !== sorted(winners)) {
      this.f.fail("winner", e.version, "winners_wrong", { winners }, `winners ${JSON.stringify(winners)} (${d.reason}) do not follow from the hand (the rules give ${JSON.stringify(expected)})`);
    }
    if (d.pot !== this.pot) this.f.fail("chips", e.version, "settled_pot", { pot: d.pot, expected: this.pot }, `the settled pot is ${d.pot}; the bets add up to ${this.pot}`);
    const rake = Math.floor(this.pot * this.rakePercent / 100);
    const share = Math.floor((this.pot - rake) / Math.max(1, winners.length));
    const odd = (this.pot - rake) - share * Math.max(1, winners.length);
    const right = new Map(winners.map((s, i) => [s, share + (i < odd ? 1 : 0)]));
    const same = amounts.size === right.size && [...right].every(([s, a]) => amounts.get(s) === a);
    if (d.rake !== rake || !same) {
      this.f.fail("chips", e.version, "payout", { pot: this.pot, rake: d.rake, expected: rake }, `paid ${JSON.stringify(d.amounts)} with rake ${d.rake}; a pot of ${this.pot} pays ${JSON.stringify(Object.fromEntries(right))} with rake ${rake}`);
    }
    for (const [seat, amount] of amounts) if (this.stacks.has(seat)) this.stacks.set(seat, this.stacks.get(seat) + amount);
    this.seeds = new Map((d.seeds || []).map((s) => [Number(s.deal), s]));
    this.settled = e;
  }

  // after the hand: mixes, commitments and decks
  async finish() {
    const reports = [];
    for (const deal of this.deals.values()) {
      if (deal.mixCheck && deal.mixCheck.mix !== await mixOf(deal.mixCheck.named)) {
        this.f.fail("seeds", deal.mixCheck.e.version, "mix_mismatch", {}, "mix is not the digest of the players' seeds");
      }
    }
    if (!this.settled) return reports;
    for (const number of [...this.deals.keys()].sort((a, b) => a - b)) {
      const deal = this.deals.get(number);
      try {
        reports.push(await this.checkDeal(deal, this.seeds.get(number)));
      } catch (err) {
        this.f.fail("deck", (deal.dealt || deal.start).version,
          "deal_incomplete", { deal: number }, `deal ${number}'s events lack what they must carry (${err.message})`);
      }
    }
    return reports;
  }

  async checkDeal(deal, revealed) {
    const settled = this.settled;
    const start = deal.start.data || {};
    const dealt = deal.dealt;
    const committed = start.commitment;
    const algorithm = dealt ? (dealt.data.algorithm || V1) : V1;
    const report = { deal: deal.deal, algorithm, commitment: committed, seed: revealed ? revealed.seed : "",
      clientSeeds: dealt ? dealt.data.client_seeds || {} : {}, mix: dealt ? dealt.data.mix || "" : "",
      deck: [], cards: dealt ? dealt.data.cards : {} };
    if (algorithm === V2) {
      const published = deal.published ? (deal.published.data || {}).next_commitment : undefined;
      if (published === undefined || published === null) {
        this.f.fail("commitment", deal.start.version, "v2_unpublished", { deal: deal.deal }, `deal ${deal.deal} is v2 but no commitment was published before it`);
      } else if (published !== committed) {
        this.f.fail("commitment", deal.start.version, "commitment_other", { deal: deal.deal, published: deal.published.version }, `deal ${deal.deal}'s commitment is not the one published at version ${deal.published.version}`);
      }
    }
    let seed = null;
    if (!revealed) {
      this.f.fail("commitment", settled.version, "no_seed_revealed", { deal: deal.deal }, `no seed revealed for deal ${deal.deal}`);
    } else {
      const seedHex = String(revealed.seed || "");
      let hashed = null;
      try { hashed = await commitmentOf(seedHex); seed = seedHex; } catch { seed = null; }
      if (seed === null || hashed !== committed) {
        this.f.fail("commitment", settled.version, "seed_commitment", { deal: deal.deal }, `the seed revealed for deal ${deal.deal} does not match its commitment`);
      } else if (revealed.commitment !== committed) {
        this.f.fail("commitment", settled.version, "revealed_commitment", { deal: deal.deal }, `deal ${deal.deal}'s revealed commitment differs from the one at the deal`);
      } else if (start.seed !== undefined && start.seed !== seedHex) {
        this.f.fail("commitment", deal.start.version, "seed_recorded", { deal: deal.deal }, `the seed recorded at deal ${deal.deal} is not the one revealed`);
      } else if (deal.drawn && (deal.drawn.data || {}).seed !== seedHex) {
        this.f.fail("commitment", deal.drawn.version, "seed_drawn", {}, "the seed drawn in advance is not the one revealed");
      }
    }
    if (!dealt) {
      this.f.fail("deck", deal.start.version, "no_cards_dealt", { deal: deal.deal }, `deal ${deal.deal} has no cards_dealt`);
      return report;
    }
    const d = dealt.data;
    if (algorithm !== V1 && algorithm !== V2) {
      this.f.fail("deck", dealt.version, "unknown_algorithm", { algorithm }, `unknown deck algorithm ${algorithm}`);
      return report;
    }
    if (seed === null || seed.length !== 64) {
      this.f.fail("deck", dealt.version, "no_seed", {}, "no valid seed to rebuild the deck from");
      return report;
    }
    const order = algorithm === V2
      ? await deckWithMix(seed, this.x.tableId, this.x.hand, deal.deal, String(d.mix || ""))
      : await deckV1(seed, this.x.tableId, this.x.hand, deal.deal);
    report.deck = order;
    const n = deal.participants.length;
    const cards = d.cards || {};
    const seats = Object.keys(cards).map(Number).sort((a, b) => a - b);
    if (JSON.stringify(seats) !== JSON.stringify([...deal.participants].sort((a, b) => a - b)) || n < 2 || n > 10) {
      this.f.fail("deck", dealt.version, "seats_mismatch", { deal: deal.deal }, `cards dealt to seats ${JSON.stringify(seats)}; the deal's players are ${JSON.stringify(deal.participants)}`);
      return report;
    }
    deal.participants.forEach((seat, i) => {
      const right = [order[i], order[n + i], order[2 * n + i]];
      const got = cards[String(seat)];
      if (JSON.stringify(got) !== JSON.stringify(right)) {
        this.f.fail("deck", dealt.version, "wrong_cards", { seat, cards: got, expected: right }, `seat ${seat} got ${got.join(" ")}; the ${algorithm} deck puts ${right.join(" ")} there`);
      }
    });
    return report;
  }
}

export async function verifyExport(exportJson, pins) {
  const x = readExport(exportJson);
  const f = new Findings();
  await checkChain(x, f);
  const hasPins = pins && (pins.newestHash || pins.hashes || pins.commitments);
  const notes = hasPins ? checkPins(x, pins, f) : [];
  const replay = new Replay(x, f);
  replay.run();
  const deals = await replay.finish();
  const results = [];
  for (const check of CHECKS) {
    if (check === "pins" && !hasPins) continue;
    const mine = f.failures.filter((x_) => x_.check === check);
    if (!mine.length) {
      const ok = { check, ok: true };
      if (check === "pins" && notes.length) ok.note = notes.join("; ");
      results.push(ok);
      continue;
    }
    const first = mine.reduce((a, b) => ((b.version ?? 0) < (a.version ?? 0) ? b : a));
    results.push({ ...first, ok: false });
  }
  return { ok: f.failures.length === 0, results, failures: f.failures, deals };
}

// Whose turn an event leaves it to, from the event alone: a betting event names the next
// seat to act (`turn`), a deadline names its seat, and a showdown, a svara's window or the
// settlement leave nobody to act (undefined: the event says nothing of the turn).
const NO_TURN = new Set(["showdown", "svara_started", "hand_settled", "hand_started",
  "svara_deal_started"]);
function turnAfter(e, before) {
  const d = e.data || {};
  if (e.type === "turn_deadline_set") return Number(d.seat);
  if (has(d, "turn")) return d.turn === null ? null : Number(d.turn);
  if (NO_TURN.has(e.type)) return null;
  return before;
}

export async function traceExport(exportJson) {
  const x = readExport(exportJson);
  const replay = new Replay(x, new Findings());
  const steps = [];
  let turn = null;
  replay.run((e) => {
    turn = turnAfter(e, turn);
    steps.push({ version: e.version, type: e.type, data: e.data, pot: replay.pot,
      stacks: Object.fromEntries([...replay.stacks].map(([s, v]) => [String(s), v])),
      folded: [...replay.folded], deal: replay.deal ? replay.deal.deal : null, turn,
      participants: replay.deal ? [...replay.deal.participants] : [] });
  });
  return steps;
}
