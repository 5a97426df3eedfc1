// This device's own seed for the deck (docs/FAIRNESS.md "Decks"): every deck dealt to the
// player is mixed with it, so the server, which committed to its own seed before the players'
// seeds were final, cannot pick a deck that suits it. Made on first use (16 random bytes,
// hex), kept in localStorage, and shown (and changeable) in the settings.
//
// When it reaches a table: a seat that has no seed yet (just sat down, here or elsewhere) gets
// this one as soon as the table screen sees it; a change in the settings goes to every table
// the player sits at (one it could not reach gets it when the player next opens it). A seat
// that already holds another seed (the player's other device) is otherwise left alone, so
// two devices never take turns overwriting each other.

const KEY = "svara:clientSeed";
export const SEED = /^[A-Za-z0-9_-]{1,64}$/;

let memory = null; // where storage is refused (some private modes): this page's lifetime only

function stored() {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return memory;
  }
}

function store(seed) {
  memory = seed;
  try {
    localStorage.setItem(KEY, seed);
  } catch { /* kept in memory */ }
}

/** 16 random bytes as hex: a new seed nobody can guess. */
export function randomSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** This device's seed, made now if it has none (or holds something unusable). */
export function clientSeed() {
  const seed = stored();
  if (seed && SEED.test(seed)) return seed;
  const made = randomSeed();
  store(made);
  return made;
}

/** Keep `seed` as this device's seed; false (nothing changes) when it is not 1-64 of
 *  [A-Za-z0-9_-]. */
export function setClientSeed(seed) {
  if (typeof seed !== "string" || !SEED.test(seed)) return false;
  store(seed);
  return true;
}

const PENDING = "svara:seedPending"; // tables a changed seed has not reached yet

function pending() {
  try {
    const list = JSON.parse(localStorage.getItem(PENDING) || "[]");
    return Array.isArray(list) ? list.filter((id) => typeof id === "string") : [];
  } catch {
    return [];
  }
}

function setPending(list) {
  try {
    localStorage.setItem(PENDING, JSON.stringify([...new Set(list)].slice(-50)));
  } catch { /* the next change sends again */ }
}

/** Whether `tableId` still waits for this device's (changed) seed. */
export function owed(tableId) {
  return pending().includes(tableId);
}

/** `tableId` got this device's seed. */
export function delivered(tableId) {
  if (owed(tableId)) setPending(pending().filter((id) => id !== tableId));
}

/** Send this device's seed to every table the player sits at (asked afresh); the tables it
 *  did not reach get it when the player next opens them. The number that did not get it. */
export async function sendEverywhere(app) {
  let tables = app.me?.tables ?? [];
  try {
    app.me = await app.api.me();
    tables = app.me.tables ?? [];
  } catch { /* the tables known so far */ }
  const seed = clientSeed();
  const answers = await Promise.allSettled(tables.map((id) => app.api.seed(id, seed)));
  const missed = tables.filter((_, i) => answers[i].status === "rejected");
  setPending([...pending().filter((id) => !tables.includes(id)), ...missed]);
  return missed.length;
}
