// Short animations: chips sliding into the pot and out to the winner, cards dealt from the
// middle. Each lasts a fraction of a second; a tap anywhere finishes every running one at
// once, and none run for a player who asked their system for reduced motion.

const reduce = window.matchMedia?.("(prefers-reduced-motion: reduce)");

export function still() { return Boolean(reduce?.matches); }

/** Every animation with an end (not a pulsing dot) jumps to it. */
export function finishAll() {
  for (const animation of document.getAnimations?.() || []) {
    if (animation.effect?.getComputedTiming().endTime !== Infinity) animation.finish();
  }
}

// A tap skips: every running animation jumps to its end.
document.addEventListener("pointerdown", finishAll, { capture: true });

function centre(el, layer) {
  const box = el.getBoundingClientRect();
  const origin = layer.getBoundingClientRect();
  return { x: box.left + box.width / 2 - origin.left, y: box.top + box.height / 2 - origin.top };
}

/** A chip (with its amount) flying from `from` to `to`, drawn in `layer` (an overlay the
 *  table's re-renders do not touch). */
export function flyChip(layer, from, to, label = "") {
  if (still() || !layer || !from || !to) return;
  const a = centre(from, layer);
  const b = centre(to, layer);
  const chip = document.createElement("span");
  chip.className = "fly-chip";
  chip.textContent = label;
  chip.style.left = `${a.x}px`;
  chip.style.top = `${a.y}px`;
  layer.append(chip);
  const animation = chip.animate([
    { transform: "translate(-50%, -50%) scale(1)", opacity: 1 },
    { transform: `translate(calc(-50% + ${b.x - a.x}px), calc(-50% + ${b.y - a.y}px)) scale(.8)`,
      opacity: 0.9 },
  ], { duration: 320, easing: "cubic-bezier(.3,.7,.4,1)" });
  animation.onfinish = () => chip.remove();
  animation.oncancel = () => chip.remove();
}

/** How long ago (ms) a deal was first seen, so cards re-rendered mid-deal continue their
 *  animation instead of starting over. */
const dealtAt = new Map();
export function dealAge(key) {
  if (!dealtAt.has(key)) dealtAt.set(key, performance.now());
  if (dealtAt.size > 50) dealtAt.delete(dealtAt.keys().next().value);
  return performance.now() - dealtAt.get(key);
}

export const DEAL_MS = 700; // the whole deal, every seat, start to end
