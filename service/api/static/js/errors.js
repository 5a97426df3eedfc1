// API error codes (docs/API.md "Errors") shown as the player's own language. A code we have no
// words for falls back to the server's message, which is English but still says something.
import { t } from "./i18n.js";

const MESSAGES = {
  network: "error.network",
  not_your_turn: "error.not_your_turn",
  wrong_phase: "error.wrong_phase",
  no_hand: "error.no_hand",
  not_in_hand: "error.not_in_hand",
  not_seated: "error.not_seated",
  already_seated: "error.already_seated",
  table_full: "error.table_full",
  seat_taken: "error.table_full",
  buy_in_out_of_range: "error.buy_in_out_of_range",
  insufficient_funds: "error.insufficient_funds",
  insufficient_chips: "error.insufficient_chips",
  amount_too_small: "error.amount_too_small",
  amount_too_large: "error.amount_too_large",
  invalid_amount: "error.invalid_amount",
  amount_required: "error.invalid_amount",
  raise_limit: "error.raise_limit",
  cannot_call_blind: "error.cannot_call_blind",
  no_check: "error.no_check",
  cannot_blind_after_look: "error.cannot_blind_after_look",
  already_looked: "error.already_looked",
  already_answered: "error.already_answered",
  not_eligible: "error.not_eligible",
  not_sat_out: "error.not_sat_out",
  not_busted: "error.not_busted",
  hand_in_progress: "error.hand_in_progress",
  table_not_found: "error.table_not_found",
  unknown_table: "error.table_not_found",
  table_archived: "archive.table_archived",
  hand_not_found: "error.hand_not_found",
  unknown_hand: "error.hand_not_found",
  version_conflict: "error.version_conflict",
  rate_limited: "error.rate_limited",
  store_unavailable: "error.unavailable",
  busy: "error.unavailable",
  transfer_expired: "error.transfer_expired",
  invalid_settings: "error.invalid_settings",
  invalid_name: "create.invalid_name",
  invite_revoked: "invite.revoked",
  not_host: "invite.not_host",
  invalid_client_seed: "settings.seed_invalid",
  missing_init_data: "error.login",
  dev_login: "error.login",
  telegram_only: "error.telegram_only",
  invalid_init_data: "error.login",
  expired_init_data: "error.login",
};

/** What to tell the player about a failed request. */
export function errorText(err) {
  const key = err && MESSAGES[err.code];
  if (key) return t(key);
  return (err && err.message) || t("error.unknown");
}
