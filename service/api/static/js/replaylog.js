// The replayer's step list: one line per event of the hand -- who did what and how much (the
// live table's wording, panels.js eventLine, where it has one), the pot after it, the event's
// version and chain hash (shortened) -- and the marks this device put on it: where its own
// replay disagrees with the server's picture, and where a check of the file broke.
import { h, who } from "./dom.js";
import { chips, list, num, t, tNodes } from "./i18n.js";
import { checkName } from "./audit.js";
import { reasonText, refusedText } from "./fairwords.js";
import { eventLine, outcome } from "./panels.js";
import { stepAt } from "./replaydata.js";

/** Every seat's name across the hand (a player who left mid-hand keeps theirs). */
export function handNames(steps) {
  const names = {};
  for (const step of steps) {
    for (const s of step.view?.seats || []) if (names[s.seat] === undefined) names[s.seat] = s.name;
    const d = step.event.data || {};
    if (step.event.type === "player_seated" && names[d.seat] === undefined) names[d.seat] = d.name;
  }
  return names;
}

const nameOf = (names, seat) => who(names[seat] ?? t("seat.unknown", { seat: Number(seat) + 1 }));

/** What the event says, in the viewer's language (nodes). */
export function stepText(event, names) {
  const d = event.data || {};
  const live = eventLine(event, names);
  if (live) return live;
  switch (event.type) {
    case "hand_started":
      return tNodes("replay.line.started", { number: num(d.number), name: nameOf(names, d.dealer) });
    case "antes_paid":
      return [t("replay.line.antes", { chips: chips(d.ante), count: (d.seats || []).length })];
    case "cards_dealt":
      return [d.deal > 1 ? t("replay.line.dealt_svara", { number: d.deal - 1 }) : t("replay.line.dealt")];
    case "svara_deal_started":
      return tNodes("replay.line.svara_deal", { number: d.deal - 1,
        names: list((d.participants || []).map((s) => names[s] ?? String(s + 1))) });
    case "turn_deadline_set": return tNodes("replay.line.turn", { name: nameOf(names, d.seat) });
    case "ante_changed": return [t("replay.line.ante_changed", { chips: chips(d.ante) })];
    case "client_seed_set": return tNodes("replay.line.seed", { name: nameOf(names, d.seat) });
    case "seed_drawn": return [t("replay.line.seed_drawn")];
    case "table_closed": return [t("replay.line.closed")];
    case "hand_settled": {
      const { headline } = outcome({ winners: d.winners, amounts: d.amounts, pot: d.pot }, names);
      return Array.isArray(headline) ? headline : [headline];
    }
    default: return [event.type];
  }
}

/** The marks' words: what differs (server vs this device) and which check broke. */
function markLines(mark, names) {
  const out = [];
  for (const d of mark.diffs) {
    const server = d.server === null || d.server === undefined ? "—" : d.what === "turn"
      ? names[d.server] ?? String(d.server) : String(d.server);
    const own = d.own === null || d.own === undefined ? "—" : d.what === "turn"
      ? names[d.own] ?? String(d.own) : String(d.own);
    const key = { pot: "replay.diff.pot", stack: "replay.diff.stack", turn: "replay.diff.turn",
      version: "replay.diff.missing", type: "replay.diff.missing" }[d.what];
    out.push(h("li", { class: "diff", dataset: { diff: d.what } },
      t(key, { name: d.seat !== undefined ? names[d.seat] ?? String(d.seat + 1) : "",
        server, own })));
  }
  for (const f of mark.failures) {
    out.push(h("li", { class: "broke", dataset: { check: f.check } },
      h("strong", {}, t("replay.broke", { check: checkName(f.check) })), " ",
      h("span", { class: "reason", dataset: { code: f.code ?? "" } }, reasonText(f, names))));
  }
  return out;
}

/** One line of the step list; `onPick` moves the replay to it. */
export function stepItem(step, i, { names, mark, current, onPick }) {
  const bad = mark && (mark.diffs.length || mark.failures.length);
  const classes = ["step"];
  if (current) classes.push("current");
  if (bad) classes.push("bad");
  if (step.event.type === "svara_deal_started" || step.event.type === "hand_started") classes.push("deal-start");
  return h("li", { class: classes.join(" "), dataset: { index: i, version: step.version,
    hash: step.hash, type: step.event.type, bad: bad ? "true" : "false",
    ...(mark?.failures.length ? { broke: mark.failures.map((f) => f.check).join(" ") } : {}) },
  "aria-current": current ? "step" : null },
  h("button", { type: "button", class: "step-pick", onclick: () => onPick(i) },
    h("span", { class: "step-text" }, stepText(step.event, names)),
    h("span", { class: "step-meta" },
      h("span", { class: "step-pot" }, t("replay.pot_after", { chips: num(step.pot_after ?? step.view?.hand?.pot ?? 0) })),
      h("code", { class: "step-ver", dir: "ltr", translate: "no" }, `v${step.version}`),
      h("code", { class: "step-hash", dir: "ltr", translate: "no", title: step.hash },
        `${String(step.hash).slice(0, 8)}…`))),
  bad ? h("ul", { class: "marks" }, markLines(mark, names)) : null);
}

/** What closes the list: each of this device's checks of the file, and where one broke. */
export function checksBlock(own, onPick, steps) {
  if (own.problem) {
    return h("section", { class: "panel replay-checks bad", id: "replay-checks",
      dataset: { verified: "false" } },
    h("p", {}, own.problem === "no_crypto" ? t("audit.no_crypto", { api: "WebCrypto" })
      : t("audit.malformed", { reason: refusedText(own.refused) })));
  }
  const ok = own.verdict.ok && own.marks.every((m) => !m.diffs.length) && !own.extra.length;
  return h("section", { class: `panel replay-checks ${ok ? "ok" : "bad"}`, id: "replay-checks",
    dataset: { verified: String(ok) } },
  h("strong", {}, ok ? t("replay.agrees") : t("replay.disagrees")),
  h("p", { class: "muted" }, t("audit.on_device")),
  h("ul", { class: "checks" }, own.verdict.results.map((r) => h("li", {
    class: r.ok ? "ok" : "bad", dataset: { check: r.check, ok: String(r.ok), version: r.ok ? "" : r.version ?? "" } },
  h("span", { class: "mark", "aria-hidden": "true" }, r.ok ? "✓" : "✗"), " ",
  h("span", {}, checkName(r.check)),
  !r.ok && stepAt(steps, r.version) !== null ? [" · ", h("button", { type: "button",
    class: "link", onclick: () => onPick(stepAt(steps, r.version)) },
  t("audit.at_event", { version: String(r.version) }))] : null))));
}
