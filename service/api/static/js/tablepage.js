// The table screen above the action bar: the tools over the felt's corners (history, leave),
// the felt (felt.js), what is happening in words, the svara, and the last hand's result; and
// the info sheet behind the felt's commitment button. Drawn from a view and what the screen
// knows besides it (table.js): nothing here keeps state.
import { h } from "./dom.js";
import { felt } from "./felt.js";
import { t } from "./i18n.js";
import { explain, resultPanel, svaraPanel } from "./panels.js";

/** The tools over the felt: the history, and leaving (armed: the second tap mid-hand). */
function tools(v, me, { leaveArmed, onLeave, onHistory, invite }) {
  const hv = v.hand;
  // a tournament's leave forfeits the place: it always asks twice, and says so
  const armed = leaveArmed && (v.tournament || (hv && hv.phase !== "settled" && me && me.in_hand));
  const [label, confirm] = v.tournament ? [t("tourney.forfeit"), t("tourney.forfeit_confirm")]
    : [t("table.leave"), t("table.leave_confirm")];
  return h("div", { class: "tools" },
    h("div", { class: "tools-start" },
      h("button", { type: "button", class: "ghost small", dataset: { action: "history" },
        onclick: onHistory }, t("table.history")),
      invite),
    me && (armed
      ? h("button", { type: "button", class: "danger small", dataset: { action: "leave" },
        onclick: onLeave }, confirm)
      : h("button", { type: "button", class: "ghost small", dataset: { action: "leave" },
        onclick: onLeave }, label)));
}

/** The elements of the screen above the bar, in order, for view `v`: `me` the viewer's seat,
 *  `result` the last settled hand (GET /hands's shape), `line` the last event in words,
 *  `stake` what the viewer put into that hand (if known), `dealKey` a deal seen dealt live. */
export function tablePage(v, { me, result, line, stake, leaveArmed, dealKey,
  onInfo, onLeave, onAudit, onShare, onHistory, onInvite, onReplay }) {
  const hv = v.hand;
  const explanation = explain(v);
  const many = (v.settings?.max_seats ?? 6) > 6;
  const seat = v.you?.seat ?? null;
  const settledStake = result && result.number === hv?.number ? stake : undefined;
  // a tournament's table seats only its registered players: nobody to invite. Up to 6 seats
  // the button takes the felt's free lower corner (the chat's is the other), where no seat is
  const invite = v.tournament ? null : h("button", { type: "button", class: "ghost small invite-open",
    dataset: { action: "invite" }, onclick: onInvite }, t("invite.button"));
  return [
    h("div", { class: `felt-wrap${many ? " many" : ""}` },
      tools(v, me, { leaveArmed, onLeave, onHistory, invite: many ? invite : null }),
      felt(v, { dealKey, stake: settledStake, onInfo }),
      many ? null : invite),
    h("div", { class: "story", id: "story" },
      explanation.length ? h("p", { class: "explain", id: "explain" }, explanation) : null,
      line ? h("p", { class: "last-line muted", id: "last-line" }, line) : null),
    svaraPanel(v),
    resultPanel(result, { me: seat, stake, onAudit, onShare, onHistory, onReplay }),
    h("div", { class: "bar-space" }),
  ];
}

/** The sheet explaining the hand's commitment (`hv`: the view's hand) and how to check it. */
export function infoSheet(hv, { close, onHistory }) {
  return h("div", { class: "sheet-back", onclick: (e) => { if (e.target === e.currentTarget) close(); } },
    h("div", { class: "sheet panel", id: "info", role: "dialog", "aria-modal": "true" },
      h("h2", {}, t("fair.title")),
      h("p", {}, t("fair.text")),
      h("code", { class: "commitment", dir: "ltr", translate: "no" }, hv.commitment),
      h("p", { class: "muted" }, t("fair.after")),
      h("div", { class: "sheet-buttons" },
        h("button", { type: "button", class: "ghost", onclick: onHistory }, t("table.history")),
        h("button", { type: "button", class: "primary", dataset: { action: "close" }, onclick: close },
          t("common.close")))));
}
