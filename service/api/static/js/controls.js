// Choosing an amount of chips: a slider for the thumb, a number box for the exact figure,
// and quick buttons (min, ×2, pot, max …). Whatever the fingers do, the value stays whole
// and inside [min, max] (the server's `legal` bounds, or a buy-in bounded by the wallet).
import { clamp, h } from "./dom.js";
import { num } from "./i18n.js";

/**
 * `quick`: [{label, value}] (values outside the bounds are clamped; duplicates dropped).
 * `name`: data-amount of the number box (tests and focus keeping find it by that).
 */
export function amountPicker({ min, max, value, quick = [], name, label, onChange = () => {} }) {
  let current = clamp(Math.round(Number(value) || min), min, max);
  const range = h("input", { type: "range", min, max, step: 1, value: current,
    "aria-label": label, class: "slider" });
  const box = h("input", { type: "number", min, max, step: 1, value: current,
    inputmode: "numeric", "aria-label": label, dataset: { amount: name } });
  const set = (n, from) => {
    current = clamp(Math.round(n), min, max);
    if (from !== range) range.value = current;
    if (from !== box) box.value = current;
    paintQuick();
    onChange(current, true);
  };
  range.addEventListener("input", () => set(Number(range.value), range));
  box.addEventListener("input", () => {
    // While typing, a value out of bounds is left as typed (and reported as not valid).
    const n = Number(box.value);
    if (Number.isInteger(n) && n >= min && n <= max) {
      current = n;
      range.value = n;
      paintQuick();
      onChange(n, true);
    } else {
      onChange(n, false);
    }
  });
  box.addEventListener("change", () => set(Number(box.value) || min, null));
  const seen = new Set();
  const buttons = [];
  for (const q of quick) {
    const v = clamp(Math.round(q.value), min, max);
    if (seen.has(v) && q.optional) continue;
    seen.add(v);
    const button = h("button", { type: "button", class: "quick", dataset: { quick: q.key, value: v },
      onclick: () => set(v, null) }, h("span", {}, q.label), h("small", {}, num(v)));
    buttons.push(button);
  }
  function paintQuick() {
    for (const b of buttons) b.classList.toggle("on", Number(b.dataset.value) === current);
  }
  paintQuick();
  const el = h("div", { class: "picker" },
    h("div", { class: "picker-row" }, range, box),
    buttons.length ? h("div", { class: "quick-row" }, buttons) : null);
  return {
    el,
    box,
    get value() { return current; },
    valid() {
      const n = Number(box.value);
      return Number.isInteger(n) && n >= min && n <= max;
    },
  };
}
