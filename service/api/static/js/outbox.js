// Actions pressed at a table, each with an action_id of its own, kept until the server has
// answered. When the network fails on the way, the same action (same id) is sent again as
// soon as the connection is back: the server answers a repeated id with its first result, so
// it is carried out exactly once. One action at a time: the bar waits while one is out.
import { ApiError } from "./api.js";
import { newId } from "./dom.js";

export class Outbox {
  /** `api`: the API client; `tableId`; `onWaiting()`: the action is kept for a resend;
   *  `onDone()`: it was carried out; `onRefused(err)`: the server said no. */
  constructor(api, tableId, { onWaiting, onDone, onRefused }) {
    this.api = api;
    this.tableId = tableId;
    this.hooks = { onWaiting, onDone, onRefused };
    this.pending = null; // an action sent and not yet answered: {id, type, amount, waiting}
    this.retryTimer = 0;
  }

  /** Queue an action and send it; false when one is already waiting for its answer. */
  add(type, amount) {
    if (this.pending) return false;
    this.pending = { id: newId(), type, amount, waiting: false, sent: 0 };
    return true;
  }

  /** Send the pending action; a network failure keeps it for `resend`. */
  async send() {
    const action = this.pending;
    if (!action || action.inFlight) return;
    action.inFlight = true;
    action.sent += 1;
    let refused = null;
    try {
      await this.api.act(this.tableId, action);
      this.pending = null;
    } catch (err) {
      if (err instanceof ApiError && err.code === "network") {
        action.waiting = true; // the same id goes again when the connection is back
        action.inFlight = false;
        clearTimeout(this.retryTimer);
        if (navigator.onLine) this.retryTimer = setTimeout(() => this.resend(), 1500);
        this.hooks.onWaiting();
        return;
      }
      this.pending = null;
      refused = err;
    }
    action.inFlight = false;
    if (refused) await this.hooks.onRefused(refused);
    else await this.hooks.onDone();
  }

  /** The connection is back: send what was waiting, with its own id. */
  resend() {
    if (this.pending && this.pending.waiting && navigator.onLine) this.send();
  }

  stop() {
    clearTimeout(this.retryTimer);
  }
}
