// Creating a Sit & Go (any player may): the settings of docs/API.md "Tournaments". The
// server decides the bounds; its refusal (400 invalid_settings names the first bad field) is
// shown under the form in the player's language, and nothing is created.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { refusalText, tourneyApi } from "./tourneyparts.js";

const FIELDS = {
  seats: "tourney.form_seats", buy_in: "tourney.form_buy_in", stack: "tourney.form_stack",
  hands_per_level: "tourney.form_hands", minutes_per_level: "tourney.form_minutes",
  fill_seconds: "tourney.form_fill",
  turn_seconds: "tourney.form_turn",
};

function field(label, input, hint) {
  return h("label", { class: "field" }, h("span", {}, label), input, hint && h("small", {}, hint));
}

function number(name, value) {
  return h("input", { type: "number", name, value, step: 1, inputmode: "numeric" });
}

/** "5, 10, 20" → [5, 10, 20]; null when a part is not a whole number. */
function ints(text) {
  const parts = text.split(/[\s,;،]+/).filter(Boolean);
  return parts.every((p) => /^\d+$/.test(p)) ? parts.map(Number) : null;
}

// The bounds the request's own schema checks before the settings are (its 400 names only the
// field: `$.seats`); the rest the settings' check names with their bounds.
const BODY_BOUNDS = { seats: [2, 10], turn_seconds: [5, 600] };

/** The server's refusal of the settings, in the player's words where we know the field. */
export function settingsText(err) {
  const message = err?.message || "";
  const at = err?.code === "invalid_body" && message.match(/at `\$\.(\w+)/);
  if (at && FIELDS[at[1]]) {
    const bounds = BODY_BOUNDS[at[1]];
    return bounds ? t("tourney.bad_range", { field: t(FIELDS[at[1]]), low: bounds[0], high: bounds[1] })
      : t("tourney.bad_field", { field: t(FIELDS[at[1]]) });
  }
  const range = message.match(/^(\w+) must be a whole number from (\d+) to (\d+)/);
  if (range && FIELDS[range[1]]) {
    let [low, high] = [Number(range[2]), Number(range[3])];
    if (range[1] === "fill_seconds") [low, high] = [Math.ceil(low / 60), Math.floor(high / 60)];
    return t("tourney.bad_range", { field: t(FIELDS[range[1]]), low, high });
  }
  if (message.startsWith("every ante")) return t("tourney.bad_ante_stack");
  if (message.startsWith("antes")) return t("tourney.bad_antes");
  if (message.startsWith("prizes may not")) return t("tourney.bad_prize_places");
  if (message.startsWith("every prize") || message.startsWith("prizes must")) {
    return t("tourney.bad_prizes");
  }
  return err?.code === "invalid_settings" ? t("tourney.error_settings") : refusalText(err);
}

export function tournamentForm(app) {
  const problem = h("p", { class: "problem form-error", role: "alert", hidden: true });
  const say = (text) => { problem.textContent = text; problem.hidden = !text; };
  const name = h("input", { name: "name", maxlength: 64, placeholder: t("tourney.form_name_hint") });
  const antes = h("input", { name: "antes", value: "10, 20, 40, 80", inputmode: "numeric" });
  const prizes = h("input", { name: "prizes", value: "", inputmode: "numeric",
    placeholder: t("tourney.form_prizes_default") });
  const inputs = { seats: number("seats", 4), buy_in: number("buy_in", 100),
    stack: number("stack", 1000), every: number("every", 5),
    fill_minutes: number("fill_minutes", 10), turn_seconds: number("turn_seconds", 15) };
  // the ante schedule: every N hands or every M minutes (the server takes exactly one)
  const everyLabel = h("span", {}, t("tourney.form_hands"));
  const schedule = h("select", { name: "schedule", onchange: () => {
    everyLabel.textContent = t(schedule.value === "minutes" ? "tourney.form_minutes"
      : "tourney.form_hands");
  } },
  h("option", { value: "hands" }, t("tourney.schedule_hands")),
  h("option", { value: "minutes" }, t("tourney.schedule_minutes")));
  const submit = h("button", { type: "submit", class: "primary", dataset: { action: "create-tournament" } },
    t("tourney.form_submit"));
  const form = h("form", { class: "create t-create", novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    if (submit.disabled) return;
    const body = { name: name.value.trim() };
    for (const key of ["seats", "buy_in", "stack", "turn_seconds"]) {
      body[key] = Math.round(Number(inputs[key].value));
    }
    const per = schedule.value === "minutes" ? "minutes_per_level" : "hands_per_level";
    body[per] = Math.round(Number(inputs.every.value));
    body.fill_seconds = Math.round(Number(inputs.fill_minutes.value) * 60);
    const levels = ints(antes.value);
    const split = ints(prizes.value);
    if (!levels || !levels.length) return say(t("tourney.bad_antes"));
    if (!split) return say(t("tourney.bad_prizes"));
    body.antes = levels;
    if (split.length) body.prizes = split;
    if (Object.values(body).some((v) => typeof v === "number" && !Number.isFinite(v))) {
      return say(t("tourney.bad_number"));
    }
    say("");
    submit.disabled = true;
    try {
      const { tournament_id: id } = await tourneyApi.create(app.api, body);
      app.openTournament(id);
    } catch (err) {
      say(err.status === 400 ? settingsText(err) : refusalText(err));
    } finally {
      submit.disabled = false;
    }
  } },
  h("h2", {}, t("tourney.form_title")),
  field(t("tourney.form_name"), name),
  h("div", { class: "grid" },
    field(t("tourney.form_seats"), inputs.seats),
    field(t("tourney.form_buy_in"), inputs.buy_in),
    field(t("tourney.form_stack"), inputs.stack),
    field(t("tourney.form_turn"), inputs.turn_seconds)),
  // the schedule's choice takes the whole row: its options are phrases, not numbers
  field(t("tourney.form_schedule"), schedule),
  h("div", { class: "grid" },
    h("label", { class: "field" }, everyLabel, inputs.every),
    field(t("tourney.form_fill"), inputs.fill_minutes)),
  field(t("tourney.form_antes"), antes, t("tourney.form_antes_hint")),
  field(t("tourney.form_prizes"), prizes, t("tourney.form_prizes_hint")),
  problem, submit);
  return h("details", { class: "panel t-create-box", id: "t-create" },
    h("summary", { dataset: { action: "create-open" } }, t("tourney.form_open")), form);
}
