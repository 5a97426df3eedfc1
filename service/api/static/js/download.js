// Saving a hand's files: its export (the stored bytes, for `svara verify FILE`) and its
// readable transcript in the player's language (docs/TRANSCRIPT.md). Inside Telegram from
// Bot API 8.0 the client saves them itself (`WebApp.downloadFile`): it fetches the URL
// without our Authorization header, so the server mints a short-lived link per file
// (`POST .../download`, a token in the URL; the answer is an attachment), and the URL must
// be https. Elsewhere (a browser, an older client, a dev server on http) the page saves the
// text it fetched as it came, through an <a download>.
import { h, toast } from "./dom.js";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";
import { telegramApp, versionAtLeast } from "./telegram.js";

const NAMES = { export: "json", transcript: "txt" };
const TYPES = { export: "application/json", transcript: "text/plain;charset=utf-8" };

export function fileName(tableId, hand, kind) {
  return `svara-${tableId}-hand-${hand}.${NAMES[kind]}`;
}

/** Save `text` as `name` from the page itself. */
function saveText(text, name, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Save file `kind` ("export" or "transcript") of a settled hand; `text`: the file's text
 *  when the page has it already. Resolves to "telegram" (Telegram saves it), "busy" (its
 *  prompt for another file is still open), "link" (an older Telegram opens the link),
 *  "page" or "failed". */
export async function saveHandFile(app, tableId, hand, kind, text = null) {
  const tg = telegramApp();
  try {
    if (tg) {
      const links = await app.api.downloadLinks(tableId, hand);
      const url = links[`${kind}_url`];
      if (typeof url === "string" && url.startsWith("https://")) {
        if (versionAtLeast("8.0") && tg.downloadFile) {
          try {
            tg.downloadFile({ url, file_name: links.file_names[kind] });
            return "telegram";
          } catch {
            return "busy"; // Telegram's own download prompt is still open: it is on its way
          }
        }
        if (tg.openLink) {
          tg.openLink(url); // the browser saves it: the answer is an attachment
          return "link";
        }
      }
    }
    const body = text ?? (kind === "export" ? await app.api.exportHand(tableId, hand)
      : await app.api.transcript(tableId, hand));
    saveText(body, fileName(tableId, hand, kind), TYPES[kind]);
    return "page";
  } catch (err) {
    toast(errorText(err));
    return "failed";
  }
}

/** The two download buttons of a hand: its file and its transcript. */
export function downloadButtons(app, tableId, hand, exportText = null) {
  return [
    h("button", { type: "button", class: "secondary", id: "download",
      dataset: { action: "download" },
      onclick: () => saveHandFile(app, tableId, hand, "export", exportText) },
    t("audit.download")),
    h("button", { type: "button", class: "secondary", id: "download-transcript",
      dataset: { action: "transcript" },
      onclick: () => saveHandFile(app, tableId, hand, "transcript") },
    t("download.transcript")),
  ];
}
