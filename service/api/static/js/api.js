// The HTTP side of API.md. Every request carries `Authorization: tma <initData>`.
import { newId } from "./dom.js";

export class ApiError extends Error {
  constructor(status, code, message, body = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

const NETWORK = "Cannot reach the server. Check your connection and try again.";

export class Api {
  /** `renew` (dev mode) fetches fresh initData when the server says the old one expired. */
  constructor(initData, renew = null) {
    this.initData = initData;
    this.renew = renew;
    this.clockAhead = null; // seconds this device's clock runs ahead of the server's (±0.5)
  }

  async request(method, path, body, retried = false) {
    try {
      return await this.send(method, path, body);
    } catch (err) {
      if (err.status === 401 && this.renew && !retried) {
        this.initData = await this.renew();
        return this.request(method, path, body, true);
      }
      throw err;
    }
  }

  async send(method, path, body) {
    const headers = { Authorization: `tma ${this.initData}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let resp;
    try {
      resp = await fetch(path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new ApiError(0, "network", NETWORK);
    }
    const date = Date.parse(resp.headers.get("Date") || "");
    if (!Number.isNaN(date)) this.clockAhead = (Date.now() - date) / 1000 - 0.5;
    let data = null;
    try { data = await resp.json(); } catch { /* not JSON: handled below */ }
    if (!resp.ok) {
      const err = data && data.error;
      throw new ApiError(resp.status, (err && err.code) || `http_${resp.status}`,
        (err && err.message) || `The server answered ${resp.status}.`, data);
    }
    return data;
  }

  me() { return this.request("GET", "/api/me"); }
  tables() { return this.request("GET", "/api/tables"); }
  createTable(settings) { return this.request("POST", "/api/tables", settings); }
  view(id) { return this.request("GET", `/api/tables/${encodeURIComponent(id)}`); }
  seat(id, buyIn) {
    return this.request("POST", `/api/tables/${encodeURIComponent(id)}/seat`, { buy_in: buyIn });
  }
  audit(id, hand) {
    return this.request("GET", `/api/tables/${encodeURIComponent(id)}/hands/${hand}/audit`);
  }
  leave(id) { return this.request("POST", `/api/tables/${encodeURIComponent(id)}/leave`); }

  /** One action; a lost answer is retried once with the same action_id (the server dedups). */
  async act(id, type, amount) {
    const body = { action_id: newId(), type };
    if (amount !== undefined && amount !== null) body.amount = amount;
    const path = `/api/tables/${encodeURIComponent(id)}/actions`;
    try {
      return await this.request("POST", path, body);
    } catch (err) {
      if (err instanceof ApiError && err.code === "network") {
        return this.request("POST", path, body);
      }
      throw err;
    }
  }
}
