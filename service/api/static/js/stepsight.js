// Where the replayer's step list puts the current step: inside the part of the list the window
// shows above the fixed control bar (replayctl.js), never under the bar. On a phone the bar
// lies across the bottom of the window and the list may run under it, so the part of the list
// that can be read ends at the bar's top (its height includes Telegram's safe area); on a wide
// window the bar stands beside the list and the window's bottom is the limit.
const MARGIN = 8; // px kept clear between the step's line and the edges of that part

/** Scroll `list` (and, when the part of it in sight is too small for `row`, the page) so that
 *  `row` is in sight above `bar`. A list scrolled out of the window entirely is positioned
 *  within itself only (a third from its top): the page is left where the viewer keeps it. */
export function keepInSight(list, row, bar) {
  const l = list.getBoundingClientRect();
  const r = row.getBoundingClientRect();
  const b = bar.getBoundingClientRect();
  const across = b.left < l.right && l.left < b.right && b.top < innerHeight;
  const top = Math.max(l.top, 0);
  const bottom = Math.min(l.bottom, across ? b.top : innerHeight);
  if (bottom <= top) {
    // not in sight: as the list read before, the step a third down from its top
    if (r.top < l.top || r.bottom > l.bottom) {
      list.scrollTop = Math.max(0, list.scrollTop + r.top - l.top - list.clientHeight / 3);
    }
    return;
  }
  let shift = 0; // how far the list scrolls
  if (r.top < top + MARGIN) shift = r.top - top - MARGIN;
  else if (r.bottom > bottom - MARGIN) shift = r.bottom - bottom + MARGIN;
  if (shift) {
    const before = list.scrollTop;
    list.scrollTop = before + shift;
    shift -= list.scrollTop - before; // what the list could not scroll (its end)
  }
  const room = bottom - top - 2 * MARGIN;
  if (shift > 0 || r.height > room) {
    // the list's part in sight cannot hold the step: the page scrolls the rest, just enough
    const row2 = row.getBoundingClientRect();
    const limit = (across ? b.top : innerHeight) - MARGIN;
    if (row2.bottom > limit) window.scrollBy(0, row2.bottom - limit);
  } else if (shift < 0) {
    const row2 = row.getBoundingClientRect();
    if (row2.top < MARGIN) window.scrollBy(0, row2.top - MARGIN);
  }
}
