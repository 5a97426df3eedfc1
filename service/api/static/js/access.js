// Turn pings need the bot to be allowed to write to the player. Someone who came from a link
// and never started the bot has not allowed it: when they first sit down (the moment a ping
// starts to matter, never at load), Telegram's requestWriteAccess asks them, once. The
// answer is remembered on this device, and a grant on the server too (POST
// /api/me/write-access: its `can_ping` then says so on every device).
import { toast } from "./dom.js";
import { t } from "./i18n.js";

const ASKED_KEY = "svara:writeAccessAsked"; // localStorage, like svara:lang

function asked() {
  try { return Boolean(localStorage.getItem(ASKED_KEY)); } catch { return false; }
}

function remember() {
  try { localStorage.setItem(ASKED_KEY, String(Math.floor(Date.now() / 1000))); } catch { /* private mode */ }
}

/** The signed initData's user as Telegram's script parsed it. */
function telegramUser(webApp) {
  return webApp?.initDataUnsafe?.user || null;
}

/** Ask once, inside a Telegram client that can (Bot API 6.9), if nothing says the bot may
 *  write already: not the signed initData, not the server (`can_ping`). */
export async function askWriteAccess(app) {
  const tg = app.webApp;
  if (!tg?.requestWriteAccess || !tg.isVersionAtLeast?.("6.9") || asked()) return;
  if (telegramUser(tg)?.allows_write_to_pm) return;
  const me = await app.api.me();
  app.me = me;
  if (me.can_ping || asked()) return;
  remember();
  const allowed = await new Promise((resolve) => {
    tg.requestWriteAccess((granted) => resolve(Boolean(granted)));
  });
  if (!allowed) return;
  app.me = await app.api.writeAccess(true);
  toast(t("access.granted"), "info");
}
