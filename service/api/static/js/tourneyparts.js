// What the tournament tab, the tournament screen and a tournament table share: the words for
// a status and a place, the prize table in chips, and registering (the refusals of
// docs/API.md "Tournaments" in the player's language; a refusal changes nothing).
import { h } from "./dom.js";
import { errorText } from "./errors.js";
import { chips, num, t } from "./i18n.js";

const path = (id) => `/api/tournaments/${encodeURIComponent(id)}`;

export const tourneyApi = {
  list: (api) => api.request("GET", "/api/tournaments?limit=50"),
  get: (api, id) => api.request("GET", path(id)),
  audit: (api, id) => api.request("GET", `${path(id)}/audit`),
  create: (api, body) => api.request("POST", "/api/tournaments", body),
  register: (api, id) => api.request("POST", `${path(id)}/register`),
  unregister: (api, id) => api.request("POST", `${path(id)}/unregister`),
};

export function statusText(status) {
  if (status === "registering") return t("tourney.status_registering");
  if (status === "running") return t("tourney.status_running");
  if (status === "finished") return t("tourney.status_finished");
  return t("tourney.status_cancelled");
}

export function statusBadge(status) {
  return h("span", { class: `badge t-status ${status}`, dataset: { status } }, statusText(status));
}

/** Whether the wallet has chips in tournament `id` (registered, or playing it). */
export function inTournament(me, id) {
  return Boolean(me?.tables?.includes(`tournament:${id}`));
}

/** The chips each place wins: the pool (every seat's buy-in: it starts only when full) by
 *  the percents; the odd chips go to the winner, as the server pays them. */
export function prizeChips({ prize_table: percents, seats, buy_in: buyIn, pool }) {
  const table = percents && percents.length ? percents : [100];
  const total = pool || seats * buyIn;
  const amounts = table.map((p) => Math.floor((total * p) / 100));
  amounts[0] += total - amounts.reduce((a, b) => a + b, 0);
  return table.map((percent, i) => ({ place: i + 1, percent, chips: amounts[i] }));
}

/** "1st: 260 · 2nd: 140": a row's prize line. */
export function prizeLine(tn) {
  return prizeChips(tn).map(({ place, chips: n }) => t("tourney.prize_line",
    { place, chips: chips(n) })).join(" · ");
}

/** "Cancelled in 9 minutes": how long an unfilled tournament still waits. */
export function fillLeft(fillBy, clockAhead = 0) {
  if (!fillBy) return "";
  const left = Math.max(0, Math.round(fillBy - (Date.now() / 1000 - clockAhead)));
  const minutes = Math.floor(left / 60);
  return minutes >= 1 ? t("tourney.fill_minutes", { count: minutes })
    : t("tourney.fill_seconds", { count: left });
}

/** A refusal of register/unregister/create in the player's words. */
export function refusalText(err, { buyIn = 0, balance = 0 } = {}) {
  switch (err?.code) {
    case "insufficient_chips":
      return t("tourney.error_chips", { need: chips(buyIn), have: chips(balance) });
    case "already_registered": return t("tourney.error_already");
    case "not_registered": return t("tourney.error_not_registered");
    case "tournament_started": return t("tourney.error_started");
    case "tournament_full": return t("tourney.error_full");
    case "tournament_cancelled": return t("tourney.error_cancelled");
    case "tournament_not_found": return t("tourney.error_not_found");
    default: return errorText(err);
  }
}

/** The standings of a finished tournament: place, name (taps open the profile), prize. */
export function standings(app, players, { limit = 0 } = {}) {
  const me = app.me?.user?.id;
  const placed = [...players].filter((p) => p.place)
    .sort((a, b) => a.place - b.place);
  const shown = limit ? placed.slice(0, limit) : placed;
  return h("ol", { class: "standings" }, shown.map((p) => h("li", {
    class: p.user_id === me ? "standing you" : "standing", dataset: { user: p.user_id, place: p.place },
  },
  h("span", { class: "place" }, num(p.place)),
  h("button", { type: "button", class: "link who-link", dataset: { action: "profile" },
    onclick: () => app.openProfile(p.user_id) }, h("bdi", { class: "user", translate: "no" }, p.name)),
  h("bdi", { class: "prize", dir: "ltr" }, p.prize ? `+${num(p.prize)}` : num(0)))));
}

/** "Ante rises every 10 minutes" (or "every 5 hands"): the schedule that governs; "" for a
 *  listing row stored before rows carried the schedule. */
export function scheduleText(s) {
  if (s.minutes_per_level > 0) return t("tourney.rises_minutes", { count: s.minutes_per_level });
  return s.hands_per_level > 0 ? t("tourney.rises_hands", { count: s.hands_per_level }) : "";
}
