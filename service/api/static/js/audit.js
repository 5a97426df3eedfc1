// The audit of one settled hand, computed on this device: the page fetches the hand's export
// (its stored bytes, docs/FAIRNESS.md) and checks it itself with fair.js -- every chain link
// recomputed, every deck rebuilt with WebCrypto from the revealed seed and the players' seeds,
// every card, score, winner and chip -- held to what this device kept while it played
// (pins.js: hashes, each deal's commitment, the player's own cards). Each check says whether
// it held, and a failure names the event version and why. The server's own verdict stands
// beside it, and a disagreement is shown as one. The file can be saved, to check it again
// anywhere (`svara verify FILE`), with its transcript, and the hand shared.
import { card } from "./cards.js";
import { h, replace, who } from "./dom.js";
import { errorText } from "./errors.js";
import { downloadButtons } from "./download.js";
import { dealHands, verifyExport } from "./fair.js";
import { reasonText, refusedText } from "./fairwords.js";
import { t, tNodes } from "./i18n.js";
import { cardsSeen, pinsFor } from "./pins.js";
import { shareButton } from "./share.js";

const NAMES = {
  chain: "audit.check.chain", pins: "audit.check.pins", commitment: "audit.check.commitment",
  seeds: "audit.check.seeds", deck: "audit.check.deck", cards: "audit.check.cards",
  scores: "audit.check.scores", winner: "audit.check.winner", chips: "audit.check.chips",
  replay: "audit.check.replay", yours: "audit.check.yours",
};
export const checkName = (check) => (NAMES[check] ? t(NAMES[check]) : check);
/** Seat -> player name, from an export's seats. */
const seatNames = (doc) => Object.fromEntries((doc?.seats || []).map((s) => [s.seat, s.name]));
const sameCards = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

function eventData(entry) {
  try {
    const data = JSON.parse(entry.raw ?? "");
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

/** The pins that concern this export: hashes of versions inside it, its hand's commitments,
 *  and the newest hash seen (checked when inside, noted when not). Null when none concern
 *  it: then the page has nothing of its own to hold the file to, and says so. */
function pinsWithin(pins, doc) {
  if (!pins || !Array.isArray(doc?.events) || !doc.events.length) return null;
  const first = doc.events[0].version;
  const last = doc.events[doc.events.length - 1].version;
  const inside = (v) => Number(v) >= first && Number(v) <= last;
  const hashes = Object.fromEntries(Object.entries(pins.hashes || {}).filter(([v]) => inside(v)));
  const newestInside = pins.newestHash && inside(pins.newestHash.version);
  const count = Object.keys(hashes).length + Object.keys(pins.commitments || {}).length
    + (newestInside ? 1 : 0);
  if (!count) return null;
  return { hashes, commitments: pins.commitments || {}, newestHash: pins.newestHash, count };
}

/** Whether user `userId` was dealt into the exported hand (its first deal or a svara deal):
 *  who sat where comes from the file's seats and the seatings in it before each deal. A
 *  device that watched a hand keeps its hashes too, and must not say it kept them playing. */
function dealtIn(doc, userId) {
  const seatOf = new Map((doc.seats || []).map((s) => [s.seat, s.user_id]));
  for (const entry of doc.events || []) {
    const data = eventData(entry);
    if (entry.type === "player_seated") seatOf.set(data.seat, data.user_id);
    else if (entry.type === "player_left") seatOf.delete(data.seat);
    else if ((entry.type === "hand_started" || entry.type === "svara_deal_started")
        && (data.participants || []).some((seat) => seatOf.get(seat) === userId)) return true;
  }
  return false;
}

/** The page's own check of the player's cards: those it was shown during the hand are where
 *  the rebuilt deck puts the player's seat. */
function checkYours(doc, result, seen) {
  const deals = {};
  let failure = null;
  for (const report of result.deals) {
    const mine = seen[report.deal];
    if (!mine) continue;
    const start = doc.events.find((e) => (report.deal === 1 ? e.type === "hand_started"
      : e.type === "svara_deal_started" && eventData(e).deal === report.deal));
    const dealt = doc.events.find((e) => e.type === "cards_dealt"
      && eventData(e).deal === report.deal);
    const players = start ? eventData(start).participants || [] : [];
    const at = players.indexOf(mine.seat);
    const expected = report.deck.length === 32 && at >= 0
      ? dealHands(report.deck, players.length)[at] : null;
    const ok = expected ? sameCards(expected, mine.cards) : null;
    deals[report.deal] = { ...mine, expected, ok };
    if (ok === false && !failure) {
      failure = { check: "yours", ok: false, version: dealt ? dealt.version : start?.version,
        reasonNodes: tNodes("audit.yours_differ", {
          shown: cardRow(mine.cards), dealt: cardRow(expected) }) };
    }
  }
  if (!Object.keys(deals).length) return { result: null, deals };
  return { result: failure || { check: "yours", ok: true }, deals };
}

function cardRow(cards, size = "small") {
  return h("span", { class: "card-row", dir: "ltr" }, cards.map((c) => card(c, size)));
}

function mark(ok) {
  return h("span", { class: "mark", "aria-hidden": "true" }, ok === null ? "–" : ok ? "✓" : "✗");
}

export class AuditScreen {
  constructor(app, tableId, hand) {
    this.app = app;
    this.tableId = tableId;
    this.hand = hand;
    this.root = h("section", { class: "audit-screen" });
  }

  async mount(screen) {
    replace(screen, this.root);
    this.app.setTitle(t("result.hand", { number: this.hand }), t("audit.title"));
    replace(this.root, h("p", { class: "panel muted" }, t("audit.checking")));
    const [server, file] = await Promise.allSettled([
      this.app.api.audit(this.tableId, this.hand),
      this.app.api.exportHand(this.tableId, this.hand)]);
    if (file.status === "rejected") {
      replace(this.root, h("p", { class: "panel", id: "audit-error" }, errorText(file.reason)),
        this.serverPanel(server, null));
      return;
    }
    const own = await this.check(file.value);
    replace(this.root, this.verdict(own), this.watch(),
      this.serverPanel(server, own.result ? own.ok : null),
      own.result ? own.result.deals.map((d) => this.deal(d, own)) : null,
      this.download(file.value));
  }

  /** Everything this device finds in the file: fair.js's checks, the pins, the own cards. */
  async check(text) {
    const own = { ok: false, result: null, yours: null, pins: null, problem: null };
    if (!globalThis.crypto?.subtle) {
      own.problem = t("audit.no_crypto", { api: "WebCrypto" }); // an insecure (http) page
      return own;
    }
    let doc;
    try {
      doc = JSON.parse(text);
      own.pins = pinsWithin(pinsFor(this.tableId, this.hand), doc);
      own.result = await verifyExport(doc, own.pins);
    } catch (err) {
      own.problem = t("audit.malformed", { reason: refusedText(err) });
      return own;
    }
    own.doc = doc;
    const userId = this.app.me?.user?.id;
    own.watching = userId !== undefined && userId !== null && !dealtIn(doc, userId);
    own.yours = checkYours(doc, own.result, cardsSeen(this.tableId, this.hand,
      this.app.me?.user?.id));
    own.ok = own.result.ok && own.yours.result?.ok !== false;
    return own;
  }

  verdict(own) {
    const failed = own.result ? [...own.result.results, own.yours.result].filter((r) => r && !r.ok) : [];
    const first = failed[0];
    return h("section", { class: `panel verdict ${own.ok ? "ok" : "bad"}`, id: "audit",
      dataset: { verified: String(own.ok), failedCheck: first?.check ?? "",
        failedVersion: first?.version ?? "" } },
    h("strong", { class: "verdict-head" }, own.ok ? t("audit.verified") : t("audit.failed")),
    h("p", { class: "muted" }, t("audit.on_device")),
    own.problem ? h("p", { class: "problem", id: "audit-problem" }, own.problem) : null,
    own.result ? h("ul", { class: "checks" },
      own.result.results.map((r) => this.checkItem(r, own)),
      own.pins ? null : h("li", { class: "none", dataset: { check: "pins", ok: "none" } },
        mark(null), h("span", {}, t("audit.nothing_kept"))),
      own.yours.result ? this.checkItem(own.yours.result) : null) : null);
  }

  checkItem(r, own = {}) {
    // what the pins were kept as: by a player dealt in, or by a device that watched the hand
    const keptAs = r.check === "pins" ? (own.watching ? "watching" : "playing") : null;
    return h("li", { class: r.ok ? "ok" : "bad",
      dataset: { check: r.check, ok: String(r.ok), version: r.ok ? "" : r.version ?? "",
        ...(keptAs ? { keptAs } : {}) } },
    mark(r.ok),
    h("span", { class: "check-text" }, h("span", { class: "check-name" },
      keptAs === "watching" ? t("audit.check.pins_watching") : checkName(r.check)),
      r.ok ? null : h("span", { class: "why" },
        r.version !== undefined && r.version !== null
          ? h("strong", { class: "at" }, t("audit.at_event", { version: String(r.version) })) : null,
        // fair.js's code for why, worded by the catalog (its English `reason` is for the file)
        r.reasonNodes ? h("span", {}, r.reasonNodes)
          : h("span", { class: "reason", dataset: { code: r.code ?? "" } },
            reasonText(r, seatNames(own.doc))))));
  }

  /** The server's own verdict, beside this device's: a disagreement is shown as one. */
  serverPanel(server, ownOk) {
    if (server.status === "rejected") {
      return h("section", { class: "panel server-audit", id: "server-audit" },
        h("p", { class: "muted" }, t("audit.server"), " ", errorText(server.reason)));
    }
    const audit = server.value;
    const agree = ownOk === null || ownOk === undefined ? null : audit.verified === ownOk;
    const failed = (audit.results || []).filter((r) => !r.ok);
    return h("section", { class: `panel server-audit${agree === false ? " disagree" : ""}`,
      id: "server-audit", dataset: { verified: String(audit.verified), agrees: String(agree) } },
    h("p", { class: "server-line" }, mark(audit.verified), " ", t("audit.server"), " ",
      h("strong", {}, audit.verified ? t("audit.verified") : t("audit.failed"))),
    failed.length ? h("ul", { class: "server-failures muted" }, failed.map((r) => h("li", {},
      checkName(r.check), " · ", t("audit.at_event", { version: String(r.version) })))) : null,
    agree === false ? h("p", { class: "problem", id: "disagree" }, t("audit.disagree")) : null);
  }

  keptLine(same, watching) {
    if (watching) return same ? t("audit.kept_same_watching") : t("audit.kept_other_watching");
    return same ? t("audit.kept_same") : t("audit.kept_other");
  }

  deal(report, own) {
    const pinned = own.pins?.commitments?.[`${this.hand}:${report.deal}`];
    const mine = own.yours.deals[report.deal];
    const names = new Map((own.doc.seats || []).map((s) => [s.seat, s.name]));
    const me = mine ? mine.seat : null;
    const seeds = Object.entries(report.clientSeeds || {})
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    return h("section", { class: "panel deal", dataset: { deal: report.deal } },
      h("h3", {}, report.deal > 1 ? t("audit.svara_deal", { number: report.deal - 1 })
        : t("audit.first_deal")),
      h("dl", {},
        h("dt", {}, t("audit.commitment")),
        h("dd", {}, h("code", { dir: "ltr", translate: "no" }, report.commitment),
          pinned ? h("p", { class: `kept ${pinned === report.commitment ? "ok" : "bad"}`,
            dataset: { kept: String(pinned === report.commitment) } },
          mark(pinned === report.commitment), " ",
          this.keptLine(pinned === report.commitment, own.watching)) : null),
        h("dt", {}, t("audit.seed")),
        h("dd", {}, h("code", { dir: "ltr", translate: "no" }, report.seed || "—")),
        h("dt", {}, t("audit.player_seeds")),
        h("dd", {}, seeds.length
          ? h("ul", { class: "player-seeds" }, seeds.map(([seat, seed]) => h("li", {
            dataset: { seat } },
          who(names.get(Number(seat)) ?? t("seat.unknown", { seat: Number(seat) })),
          Number(seat) === me ? [" ", h("span", { class: "badge mine" }, t("audit.you"))] : null,
          h("code", { dir: "ltr", translate: "no" }, seed))))
          : h("span", { class: "muted" }, t("audit.no_player_seeds")))),
      h("p", { class: "muted" }, t("audit.deck_order")),
      h("div", { class: "deck", dir: "ltr", dataset: { deal: report.deal } },
        report.deck.map((c) => card(c, "small"))),
      mine ? h("div", { class: `yours ${mine.ok === false ? "bad" : mine.ok ? "ok" : ""}`,
        dataset: { ok: String(mine.ok) } },
      h("p", {}, t("audit.your_cards")),
      h("div", { class: "yours-row" }, cardRow(mine.cards, "medium"),
        mine.ok === null ? null : h("span", { class: "yours-note" }, mark(mine.ok), " ",
          mine.ok ? t("audit.yours_same") : t("audit.yours_other")))) : null);
  }

  /** The hand step by step in the replayer ("back" returns here). */
  watch() {
    return h("p", { class: "audit-links" }, h("button", { type: "button", class: "secondary",
      dataset: { action: "replay" },
      onclick: () => this.app.openReplay(this.tableId, this.hand, { from: "audit" }) },
    t("replay.watch")));
  }

  /** Save the file exactly as the server sent it, or its transcript; share the hand. */
  download(text) {
    return h("section", { class: "panel download" },
      h("div", { class: "hand-tools" }, downloadButtons(this.app, this.tableId, this.hand, text),
        shareButton(this.app, this.tableId, this.hand)),
      h("p", { class: "muted" }, tNodes("audit.download_hint", {
        command: h("code", { class: "inline", dir: "ltr", translate: "no" }, "svara verify") })));
  }
}
