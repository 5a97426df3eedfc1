// Bringing a node on the page to look like a freshly drawn one by touching only what differs:
// a text that changed gets its new text, an attribute (the class too) its new value, a child
// that came or went is put in or taken out; the other nodes stay. A step of the replayer
// changes a stack or a pot, moves the turn from seat to seat, turns a card face up: a new
// node would have to be styled and laid out whole (its words shaped again, its cards laid
// out) where a changed text or class is only styled, and laid out, again.
//
// A class changed in place would animate where the live table's seats have transitions
// (table.css); the replayer turns them off (replay.css), so a step shows at once, as a
// redrawn part did.

/** Make `was` (on the page) the same as `now`, reusing `was` where it can; where it cannot,
 *  a copy of `now` takes its place (`now` stays as it is: a template drawn once, ahead). A
 *  copy has no event handlers: the page listens above the part. The node on the page
 *  afterwards. */
export function morph(was, now) {
  if (!alike(was, now)) {
    const copy = now.cloneNode(true);
    was.replaceWith(copy);
    return copy;
  }
  if (was.nodeType === Node.TEXT_NODE) {
    if (was.data !== now.data) was.data = now.data;
    return was;
  }
  if (was.nodeType !== Node.ELEMENT_NODE) return was;
  const wanted = now.attributes;
  for (let k = 0; k < wanted.length; k++) {
    const { name, value } = wanted[k];
    if (was.getAttribute(name) !== value) was.setAttribute(name, value);
  }
  const had = was.attributes;
  if (had.length !== wanted.length) {
    for (let k = had.length - 1; k >= 0; k--) {
      if (!now.hasAttribute(had[k].name)) was.removeAttribute(had[k].name);
    }
  }
  morphChildren(was, now);
  return was;
}

/** The same kind of node: the same tag and the same first class (`seat`, `card`, `tag`:
 *  what the node is; the classes after it say how it looks, and change in place), or both
 *  texts. */
function alike(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
  return a.nodeType !== Node.ELEMENT_NODE || a.classList[0] === b.classList[0];
}

/** `was`'s children made `now`'s, in order: a child alike the next one wanted is brought to
 *  it; the ones before a later alike child are taken out; a new one is put in, a copy. (A
 *  walk along the siblings: a step makes no arrays nor closures to collect.) */
function morphChildren(was, now) {
  let old = was.firstChild;
  for (let fresh = now.firstChild; fresh; fresh = fresh.nextSibling) {
    let ahead = old;
    while (ahead && !alike(ahead, fresh)) ahead = ahead.nextSibling;
    if (!ahead) {
      was.insertBefore(fresh.cloneNode(true), old);
      continue;
    }
    while (old !== ahead) {
      const next = old.nextSibling;
      old.remove();
      old = next;
    }
    morph(old, fresh);
    old = old.nextSibling;
  }
  while (old) {
    const next = old.nextSibling;
    old.remove();
    old = next;
  }
}
