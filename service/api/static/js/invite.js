// "Invite friends": a sheet with the table's name, stakes, free seats and its link, and the
// ways to send it. Inside Telegram (Bot API 8.0) the card the bot prepared (POST /api/share)
// goes to shareMessage, which lets the player pick chats and sends it with a Join button;
// older clients get Telegram's share sheet (openTelegramLink to t.me/share/url); outside
// Telegram the system's share sheet, or the link copied. A private table's link carries its
// invite; its host may make a new one, and the old link then stops working.
import { h, replace, toast } from "./dom.js";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";
import { stakes, tableName } from "./lobby.js";
import { deliver, unwrapShareUrl } from "./share.js";

async function copy(url) {
  try {
    await navigator.clipboard.writeText(url);
    toast(t("share.copied"), "info");
  } catch {
    toast(t("share.copy_this", { url }), "info"); // no clipboard here: the link to copy by hand
  }
}

/** The sheet for the table screen `s` (its view, api and app); `close` takes it away. */
export function inviteSheet(s, { close }) {
  const v = s.view;
  const api = s.app.api;
  const host = v.private && v.created_by === s.app.me?.user?.id;
  let card = null; // POST /api/share's answer (or its fallback alone, without a bot)
  const link = h("code", { class: "invite-link", id: "invite-link", dir: "ltr", translate: "no" },
    t("invite.loading"));
  const share = h("button", { type: "button", class: "primary", disabled: true,
    dataset: { action: "share-invite" } }, t("invite.share"));
  const copyButton = h("button", { type: "button", class: "ghost", disabled: true,
    dataset: { action: "copy-link" } }, t("invite.copy"));

  const prepare = async () => {
    share.disabled = true;
    copyButton.disabled = true;
    const body = { kind: "table", table_id: s.tableId };
    if (s.invite) body.invite = s.invite;
    try {
      card = await api.share(body);
    } catch (err) {
      const fallback = err.body?.fallback_url;
      card = fallback ? { fallback_url: fallback } : null;
      if (!card) {
        replace(link, errorText(err));
        if (err.code === "invite_revoked") toast(t("invite.revoked"));
        return;
      }
    }
    replace(link, unwrapShareUrl(card.fallback_url).url);
    share.disabled = false;
    copyButton.disabled = false;
  };

  share.addEventListener("click", async () => {
    if (!card) return;
    if (card.prepared_message_id && !(card.expires_at > api.serverNow() + 10)) await prepare();
    if (card) await deliver(card.prepared_message_id ? card : null, card.fallback_url);
  });
  copyButton.addEventListener("click", () => card && copy(unwrapShareUrl(card.fallback_url).url));

  const renew = host && h("button", { type: "button", class: "ghost",
    dataset: { action: "renew-invite" }, onclick: async () => {
      renew.disabled = true;
      try {
        const { invite } = await api.renewInvite(s.tableId);
        s.invite = invite;
        toast(t("invite.renewed"), "info");
        await prepare();
      } catch (err) {
        toast(errorText(err));
      } finally {
        renew.disabled = false;
      }
    } }, t("invite.renew"));

  const seats = v.settings?.max_seats ?? 0;
  const sheet = h("div", { class: "sheet-back", onclick: (e) => { if (e.target === e.currentTarget) close(); } },
    h("div", { class: "sheet panel invite", id: "invite", role: "dialog", "aria-modal": "true",
      "aria-labelledby": "invite-title" },
    h("h2", { id: "invite-title" }, t("invite.title")),
    h("p", { class: "invite-table" }, h("strong", { class: "table-name" },
      tableName({ name: v.name, host: v.host, practice: v.seats.some((p) => p.user_id < 0) }))),
    h("p", { class: "muted" }, stakes({ ante: v.settings?.ante, bet_unit: v.settings?.bet_unit }),
      " · ", t("lobby.seats_free", { free: Math.max(0, seats - v.seats.length), max: seats })),
    v.private && h("p", { class: "note invite-private" }, t("invite.private_note")),
    link,
    h("div", { class: "sheet-buttons" }, share, copyButton),
    renew && h("div", { class: "invite-renew" }, renew,
      h("small", { class: "muted" }, t("invite.renew_note"))),
    h("button", { type: "button", class: "ghost", dataset: { action: "close" }, onclick: close },
      t("common.close"))));
  prepare();
  return sheet;
}
