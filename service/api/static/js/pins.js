// What this device keeps of each table while it plays, so a later audit can be held to it
// (docs/CHAIN.md "What pinning adds"; docs/FAIRNESS.md "In short"): a server that rewrote the log afterwards --
// even with every hash recomputed, which keeps the chain itself valid -- contradicts a hash or
// a commitment kept here, and the audit screen shows that as a failed check.
//
// Per table, in localStorage (`svara:pins:<table>`):
//   newest       {version, hash}: the newest event hash seen (the live feed: each WebSocket frame)
//   hashes       {"<version>": hash}: the hashes of each hand's hand_started, cards_dealt,
//                svara_deal_started and hand_settled -- versions inside the hand, which an
//                export of that hand can be checked against (the newest is usually later)
//   commitments  {"<hand>:<deal>": commitment}: each deal's commitment in full, the first
//                one seen (normally the one published before the deal: the view's
//                `next_commitment`; else `hand.commitment` during the deal)
//   cards        {"<hand>:<deal>": {user, seat, cards}}: the player's own cards as shown
// Bounded: the last HANDS hands of a table, the last TABLES tables (the least recently
// played go first). Storage refused (private modes) keeps them for this page's lifetime.
// A live frame costs about 0.2 ms on a desktop CPU (bench/bench_webaudit.py).

const PREFIX = "svara:pins:";
const INDEX = "svara:pins"; // {tableId: last touched, ms}
const TABLES = 20;
const HANDS = 30;
const PINNED_TYPES = new Set(["hand_started", "cards_dealt", "svara_deal_started", "hand_settled"]);

// Parsed records by key, so a live frame costs no parse: localStorage is written through, and
// another tab's write (the `storage` event) drops the copy here. Storage refused: this only.
const cache = new Map();
globalThis.addEventListener?.("storage", (e) => {
  if (e.key === null) cache.clear();
  else cache.delete(e.key);
});

function read(key) {
  if (cache.has(key)) return cache.get(key);
  let value = null;
  try {
    const text = localStorage.getItem(key);
    value = text ? JSON.parse(text) : null;
  } catch { /* unreadable or refused: nothing kept */ }
  cache.set(key, value);
  return value;
}

function write(key, value) {
  cache.set(key, value);
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false; // full or refused: the caller may make room and try again
  }
}

function remove(key) {
  cache.delete(key);
  try { localStorage.removeItem(key); } catch { /* nothing kept there */ }
}

function empty() {
  return { newest: null, hashes: {}, commitments: {}, cards: {} };
}

function record(tableId) {
  const found = read(PREFIX + tableId);
  return found && typeof found === "object" ? { ...empty(), ...found } : empty();
}

/** The record kept for `tableId` (an empty one if none): a copy to read. */
export function kept(tableId) {
  return JSON.parse(JSON.stringify(record(tableId)));
}

/** Drop what belongs to hands older than the last HANDS (hashes by version: the last 4 per
 *  hand kept). */
function prune(r) {
  const handOf = (key) => Number(key.split(":")[0]);
  const hands = [...new Set([...Object.keys(r.commitments), ...Object.keys(r.cards)]
    .map(handOf))].sort((a, b) => b - a);
  const oldest = hands.length > HANDS ? hands[HANDS - 1] : -Infinity;
  for (const part of ["commitments", "cards"]) {
    for (const key of Object.keys(r[part])) if (handOf(key) < oldest) delete r[part][key];
  }
  const versions = Object.keys(r.hashes).map(Number).sort((a, b) => b - a);
  for (const v of versions.slice(4 * HANDS)) delete r.hashes[v];
}

function save(tableId, r) {
  prune(r);
  const index = { ...(read(INDEX) || {}) };
  const byRecency = Object.keys(index).sort((a, b) => index[b] - index[a]);
  const newest = byRecency[0] === tableId;
  const order = [tableId, ...byRecency.filter((id) => id !== tableId)];
  if (!newest) {
    // later than every other table's, even within one millisecond: the order is the recency
    index[tableId] = Math.max(Date.now(), ...Object.values(index).map((at) => at + 1));
    for (const old of order.slice(TABLES)) {
      delete index[old];
      remove(PREFIX + old);
    }
  }
  if (!write(PREFIX + tableId, r)) {
    // out of room: give up the least recently played tables until it fits
    for (const old of order.slice(1, TABLES).reverse()) {
      delete index[old];
      remove(PREFIX + old);
      if (write(PREFIX + tableId, r)) break;
    }
    write(INDEX, index);
  } else if (!newest) {
    write(INDEX, index);
  }
}

/** `change` edits the record and says whether it changed anything (then it is saved). */
function update(tableId, change) {
  const r = record(tableId);
  if (change(r)) save(tableId, r);
}

/** An event this page received (a WebSocket frame's or /events'), with its chain hash. */
export function keepEvent(tableId, event) {
  if (!event || !Number.isInteger(event.version) || typeof event.hash !== "string") return;
  update(tableId, (r) => {
    let changed = false;
    if (!r.newest || r.newest.version < event.version) {
      r.newest = { version: event.version, hash: event.hash };
      changed = true;
    }
    if (PINNED_TYPES.has(event.type) && r.hashes[event.version] !== event.hash) {
      r.hashes[event.version] = event.hash;
      changed = true;
    }
    return changed;
  });
}

/** Which deal a view's `next_commitment` is for: the svara deal about to be dealt, or the
 *  next hand's first deal. */
function nextDeal(view) {
  const hand = view.hand;
  if (!hand) return "1:1";
  if (hand.phase === "svara_join") return `${hand.number}:${hand.deal + 1}`;
  if (hand.phase === "settled") return `${hand.number + 1}:1`;
  return null; // mid-deal the view publishes no next commitment
}

/** A view this page was shown: the commitments in it and the player's own cards. */
export function keepView(tableId, view, userId) {
  if (!view || typeof view !== "object") return;
  update(tableId, (r) => {
    let changed = false;
    const next = view.next_commitment ? nextDeal(view) : null;
    if (next && !r.commitments[next]) {
      r.commitments[next] = view.next_commitment;
      changed = true;
    }
    const hand = view.hand;
    if (!hand) return changed;
    const key = `${hand.number}:${hand.deal}`;
    if (hand.commitment && !r.commitments[key]) {
      r.commitments[key] = hand.commitment;
      changed = true;
    }
    const you = view.you || {};
    if (Array.isArray(you.cards) && you.cards.length === 3 && you.seat !== null
        && you.seat !== undefined) {
      const seen = { user: userId ?? null, seat: you.seat, cards: [...you.cards] };
      if (JSON.stringify(r.cards[key]) !== JSON.stringify(seen)) {
        r.cards[key] = seen;
        changed = true;
      }
    }
    return changed;
  });
}

/** The pins for `verifyExport` (fair.js): the newest hash, the hashes kept from hands, and
 *  the commitments of `hand`'s deals. Null when this device kept nothing of that hand. */
export function pinsFor(tableId, hand) {
  const r = record(tableId);
  const commitments = Object.fromEntries(Object.entries(r.commitments)
    .filter(([key]) => key.startsWith(`${hand}:`)));
  if (!r.newest && !Object.keys(r.hashes).length && !Object.keys(commitments).length) return null;
  const pins = { hashes: { ...r.hashes }, commitments };
  if (r.newest) pins.newestHash = { ...r.newest };
  return pins;
}

/** The player's own cards this device was shown in `hand`: {deal: {seat, cards}}. */
export function cardsSeen(tableId, hand, userId) {
  const out = {};
  for (const [key, seen] of Object.entries(record(tableId).cards)) {
    const [number, deal] = key.split(":").map(Number);
    if (number === hand && (seen.user === null || seen.user === userId)) out[deal] = seen;
  }
  return out;
}
