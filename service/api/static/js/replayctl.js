// The replayer's controls, in a bar at the bottom where a thumb reaches them: previous, play
// or pause, next, the speed (1x, 2x), a slider over the hand's events, and a jump to each
// deal when the hand had a svara. On a keyboard: the arrows step (the way the text runs:
// in Arabic the left arrow goes on), space plays or pauses, Home and End go to the ends.
import { h } from "./dom.js";
import { isRtl, num, t } from "./i18n.js";

/** The bar: `starts` [{deal, index}] each deal's first step; the callbacks move the replay.
 *  `paint(state)` shows {index, playing, speed, deal}. */
export function controls({ count, starts, onPrev, onNext, onSeek, onPlay, onSpeed }) {
  const slider = h("input", { type: "range", min: 0, max: Math.max(0, count - 1), step: 1, value: 0,
    id: "replay-slider", "aria-label": t("replay.slider"),
    oninput: (e) => onSeek(Number(e.target.value)) });
  // The arrows point the way the steps go on screen: in a right-to-left page "next" is on
  // the left and points left (each glyph set left to right, so no mirroring turns it again).
  const [back, forth] = isRtl() ? ["›", "‹"] : ["‹", "›"];
  const prev = h("button", { type: "button", class: "ctl", dataset: { action: "prev" },
    "aria-label": t("replay.prev"), title: t("replay.prev"), onclick: onPrev },
  h("span", { "aria-hidden": "true", dir: "ltr" }, back));
  const next = h("button", { type: "button", class: "ctl", dataset: { action: "next" },
    "aria-label": t("replay.next"), title: t("replay.next"), onclick: onNext },
  h("span", { "aria-hidden": "true", dir: "ltr" }, forth));
  const play = h("button", { type: "button", class: "ctl play primary", dataset: { action: "play" },
    onclick: onPlay });
  const speed = h("button", { type: "button", class: "ctl speed", dir: "ltr", dataset: { action: "speed" },
    "aria-label": t("replay.speed"), title: t("replay.speed"), onclick: onSpeed });
  const deals = starts.length > 1 ? starts.map((s) => h("button", { type: "button",
    class: "deal-jump", dataset: { action: "deal", deal: s.deal },
    onclick: () => onSeek(s.index) },
  s.deal === 1 ? t("replay.deal_first") : t("replay.deal_svara", { number: s.deal - 1 }))) : [];
  const root = h("nav", { class: "replay-bar", id: "replay-bar", "aria-label": t("replay.controls") },
    deals.length ? h("div", { class: "deal-jumps", id: "deal-jumps" }, deals) : null,
    slider,
    h("div", { class: "ctl-row" }, prev, play, next, speed));
  // (each write only when its value changes: a step moves the slider and little else, and
  // every write restyles what it touches)
  let shown = {};
  return {
    root,
    paint({ index, playing, speed: x, deal }) {
      if (shown.index !== index) {
        slider.value = String(index);
        prev.disabled = index <= 0;
        next.disabled = index >= count - 1;
      }
      if (shown.playing !== playing) {
        replace1(play, playing ? "❚❚" : "▶");
        play.setAttribute("aria-label", playing ? t("replay.pause") : t("replay.play"));
        play.title = play.getAttribute("aria-label");
        play.dataset.playing = String(playing);
      }
      if (shown.speed !== x) {
        speed.textContent = `${num(x)}×`; // a sign, the same in every language
        speed.dataset.speed = String(x);
      }
      if (shown.deal !== deal) {
        for (const b of deals) b.setAttribute("aria-pressed", String(Number(b.dataset.deal) === deal));
      }
      shown = { index, playing, speed: x, deal };
    },
  };
}

function replace1(button, glyph) {
  button.textContent = "";
  button.append(h("span", { "aria-hidden": "true" }, glyph));
}

/** What a key press asks of the replay (null: not ours; typing and the slider keep theirs). */
export function keyAction(e) {
  if (e.altKey || e.ctrlKey || e.metaKey) return null;
  const tag = e.target?.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return null;
  // (space on a focused button plays too: preventDefault keeps it from clicking the button)
  if (e.key === " " || e.key === "Spacebar") return "play";
  if (e.key === "ArrowRight") return isRtl() ? "prev" : "next";
  if (e.key === "ArrowLeft") return isRtl() ? "next" : "prev";
  if (e.key === "Home") return "first";
  if (e.key === "End") return "last";
  return null;
}
