// What a link asks the app to open (docs/API.md, "Deep links"), read strictly: Telegram's
// start_param (`table_<id>`, `table_<id>_<invite>`, `hand_<id>_<n>`, `tournament_<id>`) and
// the plain browser's query (`?table=<id>[&invite=]`, `?hand=<id>_<n>`, `?tournament=<id>`).
// A link is someone else's text: anything not matching these patterns whole is refused
// (`{ kind: "bad" }`: the lobby and a message), and what passes is only ids, never markup.
//
// The payload patterns are those of service/bot/links.py: a table id in a payload has no "_"
// (the service makes hex ids), so the "_" after it starts the invite or the hand number.

const PAYLOAD_ID = "[A-Za-z0-9-]{1,32}";
const INVITE = "[A-Za-z0-9_-]{1,24}";
const HAND = "[1-9][0-9]{0,8}";
const START_TABLE = new RegExp(`^table_(${PAYLOAD_ID})(?:_(${INVITE}))?$`);
const START_HAND = new RegExp(`^hand_(${PAYLOAD_ID})_(${HAND})$`);
const START_TOURNAMENT = new RegExp(`^tournament_(${PAYLOAD_ID})$`);
// In a query the id stands alone, so it may be any table id the API knows (docs/API.md).
const TABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const QUERY_HAND = new RegExp(`^([A-Za-z0-9_-]{1,64})_(${HAND})$`);
const INVITE_ONLY = new RegExp(`^${INVITE}$`);
const HAND_ONLY = new RegExp(`^${HAND}$`);
const TOURNAMENT_ID = new RegExp(`^${PAYLOAD_ID}$`);

const BAD = Object.freeze({ kind: "bad" });

/** A start_param → `{kind: "table", id, invite}`, `{kind: "hand", id, hand}`,
 *  `{kind: "tournament", id}`, `{kind: "bad"}`; null when there is none. */
export function parseStartParam(param) {
  if (param === null || param === undefined || param === "") return null;
  if (typeof param !== "string") return BAD;
  let found = START_TABLE.exec(param);
  if (found) return { kind: "table", id: found[1], invite: found[2] ?? null };
  found = START_HAND.exec(param);
  if (found) return { kind: "hand", id: found[1], hand: Number(found[2]) };
  found = START_TOURNAMENT.exec(param);
  if (found) return { kind: "tournament", id: found[1] };
  return BAD;
}

/** A page's query (`location.search`) → the same shapes; null when it names nothing.
 *  `?table=<id>` may carry the app's own screens (`&screen=history`, `&screen=audit&hand=<n>`):
 *  then `hand` is a plain number, and `screen` is left to the app's routing. */
export function parseQuery(search) {
  const query = new URLSearchParams(search);
  const table = query.get("table");
  const hand = query.get("hand");
  const invite = query.get("invite");
  const tournament = query.get("tournament");
  const repeated = ["table", "hand", "invite", "tournament"].some((k) => query.getAll(k).length > 1);
  if (repeated) return BAD;
  if (tournament !== null) {
    if (table !== null || hand !== null || invite !== null) return BAD;
    return TOURNAMENT_ID.test(tournament) ? { kind: "tournament", id: tournament } : BAD;
  }
  if (table !== null) {
    if (!TABLE_ID.test(table)) return BAD;
    if (invite !== null && !INVITE_ONLY.test(invite)) return BAD;
    if (hand !== null && !HAND_ONLY.test(hand)) return BAD;
    return { kind: "table", id: table, invite, screenHand: hand === null ? null : Number(hand) };
  }
  if (invite !== null) return BAD; // an invite says nothing without its table
  if (hand !== null) {
    const found = QUERY_HAND.exec(hand);
    return found ? { kind: "hand", id: found[1], hand: Number(found[2]) } : BAD;
  }
  return null;
}

/** What this launch asks for: the query first (the app's own pages, and the links the bot
 *  gives), else Telegram's start_param (as the script parsed it, as the URL fragment has it,
 *  or inside the signed initData). */
export function requestedLink(search, startParams) {
  const fromQuery = parseQuery(search);
  if (fromQuery) return fromQuery;
  for (const param of startParams) {
    if (param) return parseStartParam(param);
  }
  return null;
}

/** The query that opens `link` in a plain browser: what a start_param becomes once read. */
export function linkQuery(link) {
  const enc = encodeURIComponent;
  if (link.kind === "table") {
    return `?table=${enc(link.id)}${link.invite ? `&invite=${enc(link.invite)}` : ""}`;
  }
  if (link.kind === "hand") return `?hand=${enc(link.id)}_${link.hand}`;
  if (link.kind === "tournament") return `?tournament=${enc(link.id)}`;
  return "";
}
