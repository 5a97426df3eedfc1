// The replayer of one settled hand: the live table's own felt (felt.js) and result panel
// (panels.js), step by step through the hand's events as the server's replay gives them
// (GET .../replay: each event with the caller's view at its version), with a step list
// beside it (replaylog.js) and controls a thumb reaches (replayctl.js).
//
// Two modes: "as you saw it" (each step's view: only the cards the viewer could see then)
// and "open cards" (every dealt seat's cards from the decks this device rebuilt itself from
// the revealed seeds, fair.js). Alongside, this device replays the hand's stored events
// itself (the export, fair.js) and marks every step where its pot, stacks or turn differ
// from the server's, and every step where a check of the file broke (replaydata.js).
import { h, replace } from "./dom.js";
import { errorText } from "./errors.js";
import { feltParts } from "./felt.js";
import { logEvent, settledResult, startLog } from "./handlog.js";
import { t } from "./i18n.js";
import { resultPanel } from "./panels.js";
import { morph } from "./patch.js";
import { crossCheck, dealStarts, openView, scoringOf } from "./replaydata.js";
import { controls, keyAction } from "./replayctl.js";
import { checksBlock, handNames, stepItem, stepText } from "./replaylog.js";
import { keepInSight } from "./stepsight.js";

const STEP_MS = 1000; // one step a second at 1x

/** `el.dataset[key] = value`, written only when it changes (a write restyles what it matches). */
function setData(el, key, value) {
  if (el.dataset[key] !== value) el.dataset[key] = value;
}

/** The hand's result in GET /hands's shape (what the result panel draws), from its events. */
function resultOf(steps, names) {
  let log = null;
  for (const s of steps) {
    const { type, data } = s.event;
    if (type === "hand_started") log = startLog(data);
    else if (log && type === "hand_settled") return settledResult(log, data, names);
    else if (log) logEvent(log, type, data);
  }
  return null;
}

export class ReplayScreen {
  constructor(app, tableId, hand, { from = "" } = {}) {
    this.app = app;
    this.tableId = tableId;
    this.hand = hand;
    this.from = from;
    this.root = h("section", { class: "replay", id: "replay" });
    this.index = 0;
    this.mode = "seen";
    this.speed = 1;
    this.timer = null;
    this.onKey = (e) => this.key(e);
    this.onInfo = () => this.app.openAudit?.(this.tableId, this.hand);
  }

  async mount(screen) {
    replace(screen, this.root);
    this.app.setTitle(t("result.hand", { number: this.hand }), t("replay.title"));
    replace(this.root, h("div", { class: "loading" }, h("span"), h("span"), h("span")));
    const [replay, file] = await Promise.allSettled([
      this.app.api.replay(this.tableId, this.hand),
      this.app.api.exportHand(this.tableId, this.hand)]);
    if (replay.status === "rejected") {
      const err = replay.reason;
      replace(this.root, h("p", { class: "panel", id: "replay-error", dataset: { code: err.code } },
        err.code === "hand_in_progress" ? t("replay.in_progress") : errorText(err)));
      return;
    }
    this.steps = replay.value.steps;
    this.names = handNames(this.steps);
    this.starts = dealStarts(this.steps);
    this.scoring = scoringOf(this.steps[0]?.view?.settings);
    let doc = null;
    try { doc = file.status === "fulfilled" ? JSON.parse(file.value) : null; } catch { doc = null; }
    this.own = doc ? await crossCheck(this.steps, doc)
      : { problem: file.status === "rejected" ? errorText(file.reason) : "not JSON",
        marks: this.steps.map(() => ({ diffs: [], failures: [] })), dealt: {}, extra: [] };
    this.result = resultOf(this.steps, this.names);
    this.build();
    document.addEventListener("keydown", this.onKey);
    this.show(0);
    this.prepare();
  }

  unmount() {
    this.pause();
    document.removeEventListener("keydown", this.onKey);
  }

  get canOpen() { return Object.keys(this.own.dealt || {}).length > 0; }

  build() {
    const n = this.steps.length;
    // (the felt's parts are copies of templates, without handlers of their own)
    this.feltWrap = h("div", { class: "felt-wrap replay-felt", onclick: (e) => {
      if (e.target.closest?.("button.info")) this.onInfo();
    } });
    this.templates = new Map();
    this.now = h("div", { class: "replay-now", id: "replay-now", "aria-live": "polite" });
    this.modeNote = h("p", { class: "mode-note muted", id: "mode-note" });
    this.modes = h("div", { class: "replay-modes", role: "group", "aria-label": t("replay.mode") },
      h("button", { type: "button", class: "mode", dataset: { mode: "seen" },
        onclick: () => this.setMode("seen") }, t("replay.mode_seen")),
      h("button", { type: "button", class: "mode", dataset: { mode: "open" }, disabled: !this.canOpen,
        onclick: () => this.setMode("open") }, t("replay.mode_open")));
    this.items = this.steps.map((step, i) => stepItem(step, i, { names: this.names,
      mark: this.own.marks[i], current: false, onPick: (at) => { this.pause(); this.show(at); } }));
    this.list = h("ol", { class: "steps", id: "steps" }, this.items);
    const me = this.steps.at(-1)?.view?.you?.seat ?? null;
    this.resultSlot = h("div", { class: "replay-result", dataset: { shown: "false" } },
      resultPanel(this.result, { me, stake: this.result?.stakes?.[me], compact: true }));
    this.bar = controls({ count: n, starts: this.starts,
      onPrev: () => this.step(-1), onNext: () => this.step(1),
      onSeek: (i) => { this.pause(); this.show(i); },
      onPlay: () => this.toggle(), onSpeed: () => this.toggleSpeed() });
    replace(this.root,
      this.modes, this.modeNote, this.feltWrap, this.now,
      h("details", { class: "panel replay-log", open: true },
        h("summary", {}, t("replay.steps", { count: n })), this.list),
      checksBlock(this.own, (i) => { this.pause(); this.show(i); }, this.steps),
      this.resultSlot,
      h("p", { class: "replay-links" },
        h("button", { type: "button", class: "link", dataset: { action: "audit" },
          onclick: () => this.app.openAudit(this.tableId, this.hand) }, t("result.check")),
        // the link to this replay, sent to a chat (share.js: Telegram's shareMessage)
        h("button", { type: "button", class: "link", dataset: { action: "share" },
          onclick: () => this.app.shareHand(this.tableId, this.hand) }, t("share.hand"))),
      h("div", { class: "bar-space" }),
      this.bar.root);
    this.paintMode();
  }

  setMode(mode) {
    if (mode === "open" && !this.canOpen) return;
    this.mode = mode;
    this.paintMode();
    this.show(this.index);
  }

  paintMode() {
    for (const b of this.modes.querySelectorAll("button.mode")) {
      b.setAttribute("aria-pressed", String(b.dataset.mode === this.mode));
    }
    this.root.dataset.mode = this.mode;
    this.modeNote.textContent = this.mode === "open" ? t("replay.mode_open_note")
      : this.canOpen ? t("replay.mode_seen_note") : t("replay.mode_seen_only");
  }

  /** Draw step `i`: the felt from its view, the line under it, the list's current line.
   *  A step is a tap's whole task: it writes only what changed, and reads layout once, at
   *  its end (placing the current line), so the browser styles and lays out once, the changed
   *  parts only. */
  show(i) {
    const n = this.steps.length;
    const at = Math.max(0, Math.min(n - 1, i));
    const before = this.index;
    this.index = at;
    const step = this.steps[at];
    this.drawFelt(this.viewAt(at));
    const mark = this.own.marks[at];
    const bad = Boolean(mark.diffs.length || mark.failures.length);
    setData(this.feltWrap, "bad", bad ? "true" : "false");
    this.drawNow(step, at, bad);
    this.root.dataset.index = String(at);
    this.root.dataset.version = String(step.version);
    if (before !== at || !this.items[at].classList.contains("current")) {
      this.items[before]?.classList.remove("current");
      this.items[before]?.removeAttribute("aria-current");
      this.items[at].classList.add("current");
      this.items[at].setAttribute("aria-current", "step");
    }
    // The result panel is laid out once, and shown (not laid out again) at the settlement.
    setData(this.resultSlot, "shown", String(step.event.type === "hand_settled"));
    this.bar.paint({ index: at, playing: this.timer !== null, speed: this.speed,
      deal: step.view?.hand?.deal ?? step.deal ?? 1 });
    // Last, after every write: the one layout this reads is the one the frame needs anyway.
    keepInSight(this.list, this.items[at], this.bar.root);
    if (this.timer !== null && at >= n - 1) this.pause();
  }

  /** The view step `at` is drawn from in the current mode (the open one worked out once). */
  viewAt(at) {
    return this.mode === "open" ? this.openViewAt(at) : this.steps[at].view;
  }

  openViewAt(at) {
    this.opened ||= [];
    this.opened[at] ||= openView(this.steps[at].view, this.own.dealt, this.scoring);
    return this.opened[at];
  }

  /** The line under the felt: the step's count, its words, its mark. The words of each step
   *  are drawn once, and the line brought to them (patch.js): the same nodes, new texts. */
  drawNow(step, at, bad) {
    if (!this.nowParts) {
      this.nowParts = { count: h("span", { class: "now-count" }), text: h("span", { class: "now-text" }),
        bad: h("span", { class: "now-bad", id: "now-bad" }, t("replay.marked")) };
      replace(this.now, this.nowParts.count, this.nowParts.text);
    }
    const { count, text, bad: badNote } = this.nowParts;
    const counted = t("replay.step_of", { step: at + 1, count: this.steps.length });
    if (!count.firstChild) count.textContent = counted;
    else if (count.firstChild.data !== counted) count.firstChild.data = counted; // (the same node)
    morph(text, this.wordsAt(at));
    if (bad && !badNote.isConnected) this.now.append(badNote);
    else if (!bad && badNote.isConnected) badNote.remove();
  }

  /** Step `at`'s words as the line under the felt shows them (drawn once). */
  wordsAt(at) {
    this.words ||= [];
    this.words[at] ||= h("span", { class: "now-text" }, stepText(this.steps[at].event, this.names));
    return this.words[at];
  }

  /** The felt of `view` into the felt already on the page, part by part: a part whose key
   *  (what it is drawn from, felt.js) has not changed is left as it is, a changed one is
   *  brought to its new look from its template (drawn ahead, `prepare`) touching only what
   *  differs (patch.js), so a step styles and lays out only what it changed. */
  drawFelt(view) {
    const { className, parts } = this.partsOf(view);
    const old = this.feltWrap.firstElementChild;
    if (!old || !this.feltKeys || this.feltKeys.length !== parts.length) {
      replace(this.feltWrap, h("div", { class: className, id: "felt" },
        parts.map((part) => this.template(part, view).cloneNode(true))));
      this.feltKeys = parts.map((p) => p.key);
      return;
    }
    if (old.className !== className) old.className = className;
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k];
      if (part.key === this.feltKeys[k]) continue;
      morph(old.children[k], this.template(part, view));
      this.feltKeys[k] = part.key;
    }
  }

  /** The felt's parts of `view` with their keys (felt.js), worked out once per view: a
   *  step compares keys, it does not write them again. */
  partsOf(view) {
    this.parts ||= new WeakMap();
    let found = this.parts.get(view);
    if (!found) {
      found = feltParts(view, {});
      this.parts.set(view, found);
    }
    return found;
  }

  /** A part of the felt as it looks (kept by its key: a step back or a second pass draws
   *  none again); the open mode's cards marked as this device's own. */
  template(part, view) {
    let el = this.templates.get(part.key);
    if (!el) {
      el = part.build();
      if (view.seats.find((s) => s.seat === part.seat)?.opened) {
        el.querySelector(".cards")?.classList.add("opened");
      }
      this.templates.set(part.key, el);
    }
    return el;
  }

  /** Every step's felt parts drawn ahead, in idle time (the next steps first), so a step
   *  only brings the page to them. */
  prepare() {
    const idle = window.requestIdleCallback
      || ((f) => setTimeout(() => f({ timeRemaining: () => 8 }), 50));
    const order = [];
    for (const mode of this.canOpen ? ["seen", "open"] : ["seen"]) {
      for (let i = 0; i < this.steps.length; i++) order.push([mode, i]);
    }
    const work = (deadline) => {
      while (order.length && deadline.timeRemaining() > 2) {
        const [mode, i] = order.shift();
        const view = mode === "open" ? this.openViewAt(i) : this.steps[i].view;
        for (const part of this.partsOf(view).parts) this.template(part, view);
        if (mode === "seen") this.wordsAt(i);
      }
      if (order.length && this.root.isConnected) idle(work);
    };
    idle(work);
  }

  step(delta) { this.pause(); this.show(this.index + delta); }

  toggle() {
    if (this.timer !== null) { this.pause(); return; }
    if (this.index >= this.steps.length - 1) this.show(0);
    this.play();
  }

  play() {
    this.pause();
    this.timer = setInterval(() => this.show(this.index + 1), STEP_MS / this.speed);
    this.show(this.index);
  }

  pause() {
    if (this.timer === null) return;
    clearInterval(this.timer);
    this.timer = null;
    this.bar?.paint({ index: this.index, playing: false, speed: this.speed,
      deal: this.steps[this.index]?.view?.hand?.deal ?? 1 });
  }

  toggleSpeed() {
    this.speed = this.speed === 1 ? 2 : 1;
    if (this.timer !== null) this.play();
    else this.show(this.index);
  }

  key(e) {
    const action = keyAction(e);
    if (!action) return;
    e.preventDefault();
    if (action === "next") this.step(1);
    else if (action === "prev") this.step(-1);
    else if (action === "first") this.step(-this.index);
    else if (action === "last") this.step(this.steps.length);
    else if (action === "play") this.toggle();
  }
}
