// Bringing a node on the page to look like a freshly drawn one by touching only what differs:
// a text that changed gets its new text, an attribute its new value, a child that came or went
// is put in or taken out; the other nodes stay. A step of the replayer changes a stack or a
// pot, or puts a bet beside a seat, and a new node would have to be styled and laid out whole
// (its words shaped again) where a changed text is only laid out again.
//
// An element whose class changed is replaced, not given the new class: the felt's seats
// animate a change of class (table.css transitions), and a redrawn part never did.

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
  for (const { name, value } of now.attributes) {
    if (was.getAttribute(name) !== value) was.setAttribute(name, value);
  }
  if (was.attributes.length !== now.attributes.length) {
    for (const name of was.getAttributeNames()) if (!now.hasAttribute(name)) was.removeAttribute(name);
  }
  morphChildren(was, now);
  return was;
}

/** The same kind of node: the same tag and class (or both texts). */
function alike(a, b) {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName
    && (a.nodeType !== Node.ELEMENT_NODE || a.className === b.className);
}

/** `was`'s children made `now`'s, in order: a child alike the next one wanted is brought to
 *  it; the ones before a later alike child are taken out; a new one is put in, a copy. */
function morphChildren(was, now) {
  const olds = [...was.childNodes];
  let i = 0;
  for (const fresh of now.childNodes) {
    const ahead = olds.findIndex((old, k) => k >= i && alike(old, fresh));
    if (ahead < 0) {
      was.insertBefore(fresh.cloneNode(true), olds[i] ?? null);
      continue;
    }
    for (; i < ahead; i++) olds[i].remove();
    morph(olds[i], fresh);
    i += 1;
  }
  for (; i < olds.length; i++) olds[i].remove();
}
