// What the live events say of the hand being played, kept for its result: the showdowns,
// svaras and timeouts in order, and what each seat put in (antes, bets, svara fees), so a
// winner is told their gain and not only the pot. A page that saw the hand from its middle
// keeps nothing (its events are not the whole hand): its result comes from the history.

/** A log for a hand that just started. */
export function startLog(data) {
  return { number: data.number, dealer: data.dealer, showdowns: [], svaras: [], timeouts: [],
    paid: {} };
}

function pay(log, seat, amount) {
  if (typeof amount === "number") log.paid[seat] = (log.paid[seat] || 0) + amount;
}

/** Add an event of the hand to `log` (one of startLog's). */
export function logEvent(log, type, data) {
  if (type === "antes_paid") {
    for (const seat of data.seats || []) pay(log, seat, data.ante);
  } else if (type === "blind_placed" || type === "called" || type === "raised") {
    pay(log, data.seat, data.amount);
  } else if (type === "showdown") {
    log.showdowns.push({ deal: data.deal, hands: data.hands, capped: Boolean(data.capped) });
  } else if (type === "svara_started") {
    log.svaras.push({ tied: data.tied, fee: data.fee, joined: [] });
  } else if (type === "svara_joined") {
    log.svaras.at(-1)?.joined.push(data.seat);
    pay(log, data.seat, data.fee);
  } else if (type === "timed_out") {
    log.timeouts.push({ seat: data.seat, action: data.action });
  }
}

/** The settled hand's result in GET /hands's shape, plus `stakes` (seat → chips put in). */
export function settledResult(log, data, names) {
  return { number: data.number, dealer: log.dealer, names,
    winners: data.winners, amounts: data.amounts, pot: data.pot, rake: data.rake,
    reason: data.reason, showdowns: log.showdowns, svaras: log.svaras, timeouts: log.timeouts,
    stakes: { ...log.paid } };
}

/** For a page that saw a hand from its middle: what each seat has put in so far, from a view
 *  of the first deal (its ante and this deal's bets), as a log that is `partial` (its
 *  showdowns and timeouts are not the whole hand, so the result still comes from the
 *  history). Null when the view cannot say: a svara deal's view leaves out earlier deals. */
export function partialLog(v) {
  const hv = v?.hand;
  if (!hv || hv.deal !== 1 || hv.phase === "settled") return null;
  const log = { ...startLog(hv), partial: true };
  for (const s of v.seats) {
    if (s.in_hand || s.folded) log.paid[s.seat] = (v.settings?.ante ?? 0) + (s.put_in || 0);
  }
  return log;
}
