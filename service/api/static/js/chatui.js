// The quick chat drawn: the sheet of phrases and reactions, the chat log, a bubble over a
// seat. Words come from the viewer's catalog by id (chatwords.js); names are the players'
// own text (textContent, via `who`). Nothing here keeps state (chat.js does).
import { PHRASES, REACTIONS } from "./chatwords.js";
import { h, who } from "./dom.js";
import { seconds, t } from "./i18n.js";

/** What a message says in the viewer's language ("" for an id this app does not know). */
export function saying(message) {
  if (message.phrase) return PHRASES[message.phrase] ? t(PHRASES[message.phrase]) : "";
  return REACTIONS[message.reaction]?.[0] ?? "";
}

/** The bubble over the sender's seat (a reaction: its emoji, bigger). */
export function bubble(message) {
  const text = saying(message);
  if (!text) return null;
  return h("div", { class: message.reaction ? "bubble reaction" : "bubble", role: "status",
    dataset: { seq: message.seq, phrase: message.phrase, reaction: message.reaction } }, text);
}

function back(close, ...children) {
  return h("div", { class: "sheet-back", onclick: (e) => { if (e.target === e.currentTarget) close(); } },
    ...children);
}

/** The sheet: `phrases` and `reactions` the server's ids; a spectator (`seated` false) gets
 *  the reactions only; `wait` the seconds left of a rate limit (buttons off until then). */
export function chatSheet({ phrases, reactions, seated, wait, unread, onSay, onLog, close }) {
  const off = wait > 0;
  return back(close, h("div", { class: "sheet panel chat-sheet", id: "chat-sheet", role: "dialog",
    "aria-modal": "true", "aria-label": t("chat.title") },
  h("div", { class: "chat-head" },
    h("h2", {}, t("chat.title")),
    h("button", { type: "button", class: "ghost small", dataset: { action: "chat-log" }, onclick: onLog },
      t("chat.log"), unread ? h("span", { class: "unread" }, String(unread)) : null)),
  off ? h("p", { class: "chat-wait", id: "chat-wait", role: "status" },
    t("chat.rate_limited", { seconds: seconds(wait) })) : null,
  seated
    ? h("div", { class: "phrases", id: "chat-phrases" }, phrases.filter((id) => PHRASES[id]).map((id) =>
      h("button", { type: "button", class: "phrase", disabled: off, dataset: { phrase: id },
        onclick: () => onSay({ phrase: id }) }, t(PHRASES[id]))))
    : h("p", { class: "muted chat-note", id: "chat-spectator" }, t("chat.spectators")),
  h("div", { class: "reactions", id: "chat-reactions" }, reactions.filter((id) => REACTIONS[id]).map((id) =>
    h("button", { type: "button", class: "reaction", disabled: off, dataset: { reaction: id },
      "aria-label": t(REACTIONS[id][1]), title: t(REACTIONS[id][1]),
      onclick: () => onSay({ reaction: id }) }, REACTIONS[id][0]))),
  h("div", { class: "sheet-buttons" },
    h("button", { type: "button", class: "ghost", dataset: { action: "close" }, onclick: close },
      t("common.close")))));
}

function line(message, { me, onMute }) {
  const text = saying(message);
  if (!text) return null;
  const mine = message.user_id === me;
  return h("li", { class: "chat-line", dataset: { seq: message.seq, user: message.user_id } },
    h("span", { class: "chat-who" }, who(message.name)),
    h("span", { class: message.reaction ? "chat-said reaction" : "chat-said" }, text),
    mine ? null : h("button", { type: "button", class: "ghost small mute", dataset: { mute: message.user_id },
      "aria-label": t("chat.mute_who", { name: message.name }), onclick: () => onMute(message) },
    t("chat.mute")));
}

/** The last messages (muted players' left out) and the muted players, to unmute. */
export function chatLog({ messages, muted, me, onMute, onUnmute, onBack, close }) {
  const lines = messages.map((m) => line(m, { me, onMute })).filter(Boolean);
  return back(close, h("div", { class: "sheet panel chat-log", id: "chat-log", role: "dialog",
    "aria-modal": "true", "aria-label": t("chat.log") },
  h("h2", {}, t("chat.log")),
  lines.length ? h("ol", { class: "chat-lines", id: "chat-lines" }, lines)
    : h("p", { class: "muted", id: "chat-empty" }, t("chat.empty")),
  muted.length ? h("div", { class: "chat-muted", id: "chat-muted" },
    h("h3", {}, t("chat.muted")),
    h("ul", {}, muted.map(([id, name]) => h("li", { dataset: { user: id } }, who(name),
      h("button", { type: "button", class: "ghost small", dataset: { unmute: id },
        onclick: () => onUnmute(id) }, t("chat.unmute")))))) : null,
  h("div", { class: "sheet-buttons" },
    h("button", { type: "button", class: "ghost", dataset: { action: "chat-back" }, onclick: onBack },
      t("chat.back")),
    h("button", { type: "button", class: "primary", dataset: { action: "close" }, onclick: close },
      t("common.close")))));
}
