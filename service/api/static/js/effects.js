// What an event that just happened feels like: chips flying between the seats and the pot,
// sounds, and haptics (a win, your turn). Only for recent events: a catch-up stays quiet.
import { num } from "./i18n.js";
import { flyChip } from "./motion.js";
import { play } from "./sound.js";

/** Sound, haptics and flying chips for `event` at the table drawn in `root`, now showing
 *  `view` (`before`: the view shown before the event); `fx` is the layer chips fly in. */
export function feel({ root, fx, view, haptic }, event, before) {
  const type = event.type;
  const data = event.data || {};
  const me = view?.you?.seat ?? null;
  const seatEl = (seat) => root.querySelector(`.felt .seat[data-seat="${seat}"]`);
  const pot = root.querySelector("#pot");
  const chip = (seat, amount) => flyChip(fx, seatEl(seat), pot, num(amount));
  if (type === "cards_dealt") play("deal");
  else if (["blind_placed", "called", "raised"].includes(type)) {
    chip(data.seat, data.amount);
    play("chip");
  } else if (type === "svara_joined") {
    chip(data.seat, data.fee);
    play("chip");
  } else if (type === "antes_paid") {
    for (const seat of data.seats || []) flyChip(fx, seatEl(seat), pot, "");
  } else if (type === "hand_settled") {
    const winners = Object.keys(data.amounts || {}).map(Number);
    for (const seat of winners) flyChip(fx, pot, seatEl(seat), num(data.amounts[seat]));
    if (me !== null && winners.includes(me)) {
      play("win");
      haptic("win");
    } else {
      play("chip");
    }
  }
  // Your turn: once per turn handed to you.
  const hv = view?.hand;
  const wasMine = before?.hand?.turn === me && before?.hand?.phase !== "settled";
  const joinOpen = hv?.phase === "svara_join" && hv.svara?.eligible.includes(me)
    && !hv.svara.answered.includes(me);
  const mine = me !== null && hv && ((hv.turn === me && hv.phase !== "settled") || joinOpen);
  const wasOpen = before?.hand?.phase === "svara_join";
  if (mine && !(wasMine || (joinOpen && wasOpen))) {
    play("turn");
    haptic("turn");
  }
}
