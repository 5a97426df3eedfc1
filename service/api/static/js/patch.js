// Bringing a node on the page to look like a freshly drawn one by touching only what differs:
// a text that changed gets its new text, an attribute its new value; the nodes stay. A step of
// the replayer changes a stack or a pot, and a new node would have to be styled and laid out
// whole where a changed text is only laid out again.
//
// An element whose class changed is replaced, not given the new class: the felt's seats
// animate a change of class (table.css transitions), and a redrawn part never did.

/** Make `was` (on the page) the same as `now`, reusing `was` where it can; where it cannot,
 *  a copy of `now` takes its place (`now` stays as it is: a template drawn once, ahead). A
 *  copy has no event handlers: the page listens above the part. The node on the page
 *  afterwards. */
export function morph(was, now) {
  if (was.nodeType !== now.nodeType || was.nodeName !== now.nodeName) {
    return swap(was, now);
  }
  if (was.nodeType === Node.TEXT_NODE) {
    if (was.data !== now.data) was.data = now.data;
    return was;
  }
  if (was.nodeType !== Node.ELEMENT_NODE || was.className !== now.className
      || was.childNodes.length !== now.childNodes.length) {
    return swap(was, now);
  }
  for (const { name, value } of now.attributes) {
    if (was.getAttribute(name) !== value) was.setAttribute(name, value);
  }
  if (was.attributes.length !== now.attributes.length) {
    for (const name of was.getAttributeNames()) if (!now.hasAttribute(name)) was.removeAttribute(name);
  }
  const kids = now.childNodes;
  [...was.childNodes].forEach((child, i) => morph(child, kids[i]));
  return was;
}

function swap(was, now) {
  const copy = now.cloneNode(true);
  was.replaceWith(copy);
  return copy;
}
