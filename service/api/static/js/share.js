// Sharing a settled hand (docs/WEBAPP.md, "Links, sharing and downloads"). The server
// stores a card with Telegram (`POST /api/share`: a prepared message with a Watch button to
// the hand's link); inside Telegram from Bot API 8.0 the client's own share sheet sends it
// (`shareMessage`). An older client, or a server without a bot (it answers 503 with
// `fallback_url` all the same), gets Telegram's share-a-link sheet (`openTelegramLink` with
// t.me/share/url). A plain browser shares the link itself: the system's share sheet, else
// the clipboard.
import { h, toast } from "./dom.js";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";
import { telegramApp, versionAtLeast } from "./telegram.js";

/** The link and the text inside a t.me/share/url address (else the address itself). */
export function unwrapShareUrl(fallback) {
  try {
    const url = new URL(fallback);
    if (url.hostname === "t.me" && url.pathname === "/share/url" && url.searchParams.get("url")) {
      return { url: url.searchParams.get("url"), text: url.searchParams.get("text") || "" };
    }
  } catch { /* not a URL: nothing to share */ }
  return { url: fallback, text: "" };
}

const isTelegramLink = (url) => typeof url === "string" && url.startsWith("https://t.me/");

/** Share hand `hand` of `tableId`; resolves to how: "prepared", "telegram_link", "shared",
 *  "copied", "shown", "cancelled" or "failed" (the tests read it; the player sees a toast). */
export async function shareHand(app, tableId, hand) {
  return share(app, { kind: "hand", table_id: tableId, hand });
}

async function share(app, body) {
  let answer = null;
  let fallback = null;
  try {
    answer = await app.api.share(body);
    fallback = answer.fallback_url;
  } catch (err) {
    fallback = err.body?.fallback_url;
    if (err.code !== "bot_unavailable" || typeof fallback !== "string") {
      toast(errorText(err));
      return "failed";
    }
  }
  return deliver(answer, fallback);
}

/** Send what POST /api/share answered (`answer`, null without a bot) or its `fallback` link
 *  the way this client can (the invite sheet too); resolves to how, as `shareHand`. */
export async function deliver(answer, fallback) {
  const tg = telegramApp();
  if (tg) {
    if (answer?.prepared_message_id && versionAtLeast("8.0") && tg.shareMessage) {
      try {
        tg.shareMessage(answer.prepared_message_id, (sent) => {
          if (sent) toast(t("share.sent"), "info");
        });
        return "prepared";
      } catch { /* its sheet is open already (a second tap): the link's sheet instead */ }
    }
    if (isTelegramLink(fallback) && tg.openTelegramLink) {
      tg.openTelegramLink(fallback);
      return "telegram_link";
    }
  }
  const { url, text } = unwrapShareUrl(fallback);
  if (navigator.share) {
    try {
      await navigator.share({ url, text });
      return "shared";
    } catch (err) {
      if (err?.name === "AbortError") return "cancelled";
    }
  }
  try {
    await navigator.clipboard.writeText(url);
    toast(t("share.copied"), "info");
    return "copied";
  } catch {
    toast(t("share.copy_this", { url }), "info"); // no clipboard here: the link to copy by hand
    return "shown";
  }
}

/** The Share button of a settled hand. */
export function shareButton(app, tableId, hand) {
  return h("button", { type: "button", class: "secondary", id: "share",
    dataset: { action: "share" }, onclick: () => shareHand(app, tableId, hand) },
  t("share.hand"));
}
