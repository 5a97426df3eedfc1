// Who is playing: Telegram's signed initData inside Telegram, a dev-mode test user elsewhere.

import { ApiError } from "./api.js";

const TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js";
const DEV_KEY = "svara.devUser"; // who plays now
const DEV_IDS_KEY = "svara.devIds"; // every name used on this device → its user id

function hashParams() {
  return new URLSearchParams(location.hash.replace(/^#/, ""));
}

/** True when Telegram opened this page (it passes tgWebAppData in the URL fragment). */
export function insideTelegram() {
  return hashParams().has("tgWebAppData") || Boolean(window.Telegram?.WebApp?.initData);
}

/**
 * Load Telegram's script only inside Telegram, asynchronously and with a time limit, so an
 * offline or blocked telegram.org never stops the game: without it we read the fragment.
 */
export function loadTelegram(timeoutMs = 3000) {
  if (window.Telegram?.WebApp) return Promise.resolve(window.Telegram.WebApp);
  if (!insideTelegram()) return Promise.resolve(null);
  return new Promise((resolve) => {
    const done = () => resolve(window.Telegram?.WebApp || null);
    const script = document.createElement("script");
    script.src = TELEGRAM_SCRIPT;
    script.async = true;
    script.onload = done;
    script.onerror = done;
    setTimeout(done, timeoutMs);
    document.head.append(script);
  });
}

/** The raw initData string Telegram signed, or "" outside Telegram. */
export function telegramInitData(webApp) {
  return webApp?.initData || hashParams().get("tgWebAppData") || "";
}

/** Telegram's start_param of this launch, wherever it travelled: as the script parsed it,
 *  in the URL fragment, or inside the signed initData (links.js reads it). */
export function startParams(webApp) {
  return [webApp?.initDataUnsafe?.start_param, hashParams().get("tgWebAppStartParam"),
    new URLSearchParams(location.search).get("tgWebAppStartParam"),
    new URLSearchParams(telegramInitData(webApp)).get("start_param")];
}

// --- dev mode: a test user of the person's choosing, remembered in localStorage ---------

export function devUser() {
  try {
    const user = JSON.parse(localStorage.getItem(DEV_KEY) || "null");
    if (user && Number.isInteger(user.id) && user.id > 0 && typeof user.name === "string") {
      return user;
    }
  } catch { /* corrupt entry: start over */ }
  return null;
}

export function rememberDevUser(name) {
  // Each name keeps its id on this device, so switching back to a name is the same player
  // (with the same chips); a name never used here is a new player.
  let known = {};
  try { known = JSON.parse(localStorage.getItem(DEV_IDS_KEY) || "{}") || {}; } catch { /* reset */ }
  const id = Number.isInteger(known[name]) && known[name] > 0
    ? known[name] : 1 + Math.floor(Math.random() * 2_000_000_000);
  known[name] = id;
  localStorage.setItem(DEV_IDS_KEY, JSON.stringify(known));
  const user = { id, name };
  localStorage.setItem(DEV_KEY, JSON.stringify(user));
  return user;
}

/** Signed test initData from the dev-mode server (404 when the server has a real bot); the
 *  browser's language stands in for Telegram's `language_code`. */
export async function devInitData(user) {
  const language = encodeURIComponent(navigator.language || "");
  const url = `/dev/init-data?user_id=${user.id}&name=${encodeURIComponent(user.name)}`
    + `&language=${language}`;
  let resp;
  try {
    resp = await fetch(url);
  } catch {
    throw new ApiError(0, "network", "Cannot reach the server.");
  }
  if (!resp.ok) {
    throw resp.status === 404
      ? new ApiError(404, "telegram_only", "This server runs with a real bot: open the game from Telegram.")
      : new ApiError(resp.status, "dev_login", `The server refused a test login (${resp.status}).`);
  }
  return (await resp.json()).init_data;
}
