// Tiny DOM helpers: build elements from data, never from HTML strings (no injection).

export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") {
      for (const [name, v] of Object.entries(value)) {
        if (name.startsWith("--")) el.style.setProperty(name, v);
        else el.style[name] = v;
      }
    }
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/** A player's name: their own text, isolated from the sentence's direction (Arabic around a
 *  Latin name and the other way round) and marked as not ours to translate. */
export function who(name) {
  return h("bdi", { class: "user", translate: "no" }, name);
}

let toastTimer = 0;

/** A message at the top of the screen for a few seconds: never over the action bar. */
export function toast(message, kind = "error") {
  const el = document.getElementById("toast");
  el.textContent = message;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 4000);
}

export function hideToast() {
  clearTimeout(toastTimer);
  document.getElementById("toast").hidden = true;
}

/** A random id for action_id (crypto.randomUUID needs a secure context; this does not). */
export function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high);
}

/** `refresh()` every `ms` while the page is shown, never under someone's fingers (while they
 *  type in or pick from a field of `root`) nor while `busy()`; the interval's id. */
export function refreshEvery(root, ms, busy, refresh) {
  return setInterval(() => {
    const typing = root.contains(document.activeElement)
      && ["INPUT", "SELECT"].includes(document.activeElement.tagName);
    if (!document.hidden && !typing && !busy()) refresh();
  }, ms);
}
