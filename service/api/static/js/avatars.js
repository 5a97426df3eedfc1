// Who sits at a lobby table: a row of small faces (the Telegram photo a player's signed
// initData gave, else their initials on a colour of their own) and their names.
import { h, who } from "./dom.js";
import { language, t } from "./i18n.js";

const SHOWN = 4; // faces in a row; the rest are "+n"

/** Up to two letters of a name: the first of its first and last words, in any script. */
export function initials(name) {
  const words = String(name || "").trim().split(/\s+/).filter(Boolean);
  const first = (word) => Array.from(word)[0] || "";
  if (!words.length) return "?";
  const letters = words.length > 1 ? first(words[0]) + first(words[words.length - 1]) : first(words[0]);
  return letters.toLocaleUpperCase();
}

function hue(userId) {
  return (Math.abs(Number(userId) || 0) * 47) % 360;
}

function initialsFace(player) {
  return h("span", { class: "avatar initials", translate: "no",
    style: { "--hue": String(hue(player.user_id)) } }, initials(player.name));
}

/** One face: the photo when Telegram gave one (https only), initials otherwise or if it fails. */
export function avatar(player) {
  if (typeof player.photo_url !== "string" || !player.photo_url.startsWith("https://")) {
    return initialsFace(player);
  }
  const img = h("img", { class: "avatar photo", src: player.photo_url, alt: "", loading: "lazy",
    referrerpolicy: "no-referrer", decoding: "async" });
  img.addEventListener("error", () => img.replaceWith(initialsFace(player)));
  return img;
}

/** The seated players of a lobby row (people first, bots too), or nothing for an empty table. */
export function playersLine(players) {
  const list = [...(players || [])].sort((a, b) => a.seat - b.seat);
  if (!list.length) return null;
  const more = list.length - SHOWN;
  const shown = list.slice(0, SHOWN);
  // "Ana, Boris and Cleo" as the language lists names, each name its own isolated text.
  const parts = new Intl.ListFormat(language(), { type: more > 0 ? "unit" : "conjunction" })
    .formatToParts(shown.map((p) => p.name));
  let next = 0;
  const joined = parts.map((part) => (part.type === "element" ? who(shown[next++].name) : part.value));
  return h("div", { class: "players" },
    h("span", { class: "faces", "aria-hidden": "true" }, list.slice(0, SHOWN).map(avatar)),
    h("span", { class: "player-names" }, joined,
      more > 0 ? [" ", t("lobby.players_more", { n: more })] : null));
}
