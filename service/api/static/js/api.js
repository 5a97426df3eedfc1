// The HTTP side of docs/API.md ("Endpoints"). Every request carries
// `Authorization: tma <initData>`.
import { connection } from "./net.js";

export class ApiError extends Error {
  constructor(status, code, message, body = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

const path = (id) => `/api/tables/${encodeURIComponent(id)}`;
const REQUEST_MS = 10000;

export class Api {
  /** `renew` (dev mode) fetches fresh initData when the server says the old one expired.
   *  Without it (inside Telegram) a 401 is final: only Telegram can sign a new login, so
   *  `onRefused(err)` hears of it once and no request is sent again with that initData. */
  constructor(initData, renew = null, onRefused = null) {
    this.initData = initData;
    this.renew = renew;
    this.onRefused = onRefused;
    this.refusal = null; // the ApiError that refused this initData, once one did
    this.clockAhead = null; // seconds this device's clock runs ahead of the server's (±0.5)
  }

  /** The server's time now (epoch seconds), as far as its Date headers tell: what a note
   *  about a server time ("free chips in 5 hours") counts from, not the phone's own clock. */
  serverNow() {
    return Date.now() / 1000 - (this.clockAhead ?? 0);
  }

  /** `asText`: the answer's text as sent (a file to save byte for byte), not parsed. */
  async request(method, url, body, retried = false, asText = false) {
    if (this.refusal) throw this.refusal;
    try {
      return await this.send(method, url, body, asText);
    } catch (err) {
      if (err.status === 401 && this.renew && !retried) {
        this.initData = await this.renew();
        return this.request(method, url, body, true, asText);
      }
      if (err.status === 401 && !this.renew && !this.refusal) {
        this.refusal = err;
        this.onRefused?.(err);
      }
      throw err;
    }
  }

  async send(method, url, body, asText = false) {
    const headers = { Authorization: `tma ${this.initData}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let resp;
    try {
      // A request that hangs (a network that swallows packets) fails after a while like any
      // other network failure: an action then waits to be sent again, never forever.
      resp = await fetch(url, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout ? AbortSignal.timeout(REQUEST_MS) : undefined,
      });
    } catch {
      connection.httpFailed();
      throw new ApiError(0, "network", "Cannot reach the server.");
    }
    connection.httpOk();
    const date = Date.parse(resp.headers.get("Date") || "");
    if (!Number.isNaN(date)) this.clockAhead = (Date.now() - date) / 1000 - 0.5;
    let text = "";
    try { text = await resp.text(); } catch { /* cut off: handled below */ }
    if (resp.ok && asText) return text;
    let data = null;
    try { data = JSON.parse(text); } catch { /* not JSON: handled below */ }
    if (!resp.ok) {
      const err = data && data.error;
      throw new ApiError(resp.status, (err && err.code) || `http_${resp.status}`,
        (err && err.message) || `The server answered ${resp.status}.`, data);
    }
    return data;
  }

  me() { return this.request("GET", "/api/me"); }
  settings(changes) { return this.request("POST", "/api/me/settings", changes); }
  /** One page of the lobby; `cursor`: the `next` of the page before. */
  tables(cursor = null) {
    const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
    return this.request("GET", `/api/tables${query}`);
  }
  createTable(settings) { return this.request("POST", "/api/tables", settings); }
  /** `invite`: a private table's, from its link (docs/API.md, "Private tables"). */
  view(id, invite = null) {
    const query = invite ? `?invite=${encodeURIComponent(invite)}` : "";
    return this.request("GET", `${path(id)}${query}`);
  }
  seat(id, buyIn, invite = null) {
    return this.request("POST", `${path(id)}/seat`, invite ? { buy_in: buyIn, invite }
      : { buy_in: buyIn });
  }
  rebuy(id, buyIn) { return this.request("POST", `${path(id)}/rebuy`, { buy_in: buyIn }); }
  leave(id) { return this.request("POST", `${path(id)}/leave`); }
  hands(id, limit) { return this.request("GET", `${path(id)}/hands?limit=${limit}`); }
  audit(id, hand) { return this.request("GET", `${path(id)}/hands/${hand}/audit`); }
  /** Settled hand `hand` step by step: each event with the caller's view at its version. */
  replay(id, hand) { return this.request("GET", `${path(id)}/hands/${hand}/replay`); }
  /** The hand's self-contained file (docs/FAIRNESS.md) as its text: what the audit screen
   *  checks itself and saves. */
  exportHand(id, hand) {
    return this.request("GET", `${path(id)}/hands/${hand}/export`, undefined, false, true);
  }
  /** The readable hand history in the player's language (docs/TRANSCRIPT.md). */
  transcript(id, hand) {
    return this.request("GET", `${path(id)}/hands/${hand}/transcript`, undefined, false, true);
  }
  /** Links Telegram's client may fetch without our header: {export_url, transcript_url,
   *  file_names}. */
  downloadLinks(id, hand) { return this.request("POST", `${path(id)}/hands/${hand}/download`); }
  /** A prepared message to share (`{kind: "hand", table_id, hand}` or a table's). */
  share(body) { return this.request("POST", "/api/share", body); }
  /** A private table's new invite (its host only): the old link stops working. */
  renewInvite(id) { return this.request("POST", `${path(id)}/invite`); }
  /** The app's report of Telegram's requestWriteAccess answer. */
  writeAccess(allowed) { return this.request("POST", "/api/me/write-access", { allowed }); }
  /** One page of the player's own hands, newest first; `cursor`: the page before's `next`. */
  myHands(cursor = null, limit = 20) {
    const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    return this.request("GET", `/api/me/hands?limit=${limit}${query}`);
  }
  seed(id, clientSeed) {
    return this.request("POST", `${path(id)}/seed`, { client_seed: clientSeed });
  }

  /** One action with the caller's action_id: sending the same id again is safe (the server
   *  answers the first result and appends nothing), which is how a lost answer is retried. */
  act(id, action) {
    const body = { action_id: action.id, type: action.type };
    if (action.amount !== undefined && action.amount !== null) body.amount = action.amount;
    return this.request("POST", `${path(id)}/actions`, body);
  }
}
