// Inside Telegram: its theme colours (light or dark), the safe areas around its own buttons
// and the phone's notch, the stable viewport height, haptics, and the closing confirmation
// while the player sits in a hand. Telegram's script sets some of these CSS variables
// itself; we set them from the WebApp object too, so a missing or older script still works.

const root = document.documentElement;
let webApp = null;
let confirming = false;

function px(value) { return `${Math.max(0, Number(value) || 0)}px`; }

function theme() {
  const params = webApp.themeParams || {};
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === "string") root.style.setProperty(`--tg-theme-${key.replaceAll("_", "-")}`, value);
  }
  root.dataset.theme = webApp.colorScheme === "dark" ? "dark" : "light";
}

function insets() {
  for (const [name, inset] of [["safe-area", webApp.safeAreaInset],
    ["content-safe-area", webApp.contentSafeAreaInset]]) {
    for (const side of ["top", "bottom", "left", "right"]) {
      root.style.setProperty(`--tg-${name}-inset-${side}`, px(inset?.[side]));
    }
  }
}

function viewport() {
  if (webApp.viewportStableHeight) {
    root.style.setProperty("--tg-viewport-stable-height", px(webApp.viewportStableHeight));
  }
}

/** Make the page at home in Telegram; `onResume` runs when Telegram brings it back,
 *  `onPause` when it minimises it. */
export function setupTelegram(tg, { onBack, onResume, onPause }) {
  webApp = tg;
  root.classList.add("telegram");
  tg.ready?.();
  tg.expand?.();
  tg.disableVerticalSwipes?.(); // a swipe while scrolling the table must not close the game
  theme();
  insets();
  viewport();
  tg.onEvent?.("themeChanged", theme);
  tg.onEvent?.("safeAreaChanged", insets);
  tg.onEvent?.("contentSafeAreaChanged", insets);
  tg.onEvent?.("viewportChanged", viewport);
  tg.onEvent?.("activated", onResume);
  tg.onEvent?.("deactivated", onPause); // minimised (Bot API 8.0): the table shows us away
  tg.BackButton?.onClick(onBack);
}

export function backButton(visible) {
  const button = webApp?.BackButton;
  if (!button) return;
  if (visible) button.show(); else button.hide();
}

/** Ask before closing the app while the player is seated in a hand (a stray swipe would
 *  cost them their turns). */
export function closingConfirmation(on) {
  if (!webApp || on === confirming) return;
  confirming = on;
  if (on) webApp.enableClosingConfirmation?.();
  else webApp.disableClosingConfirmation?.();
}

/** Telegram's haptics: `turn` (your move), `win`, `error`, `tap`. */
export function haptic(kind) {
  const feedback = webApp?.HapticFeedback;
  if (!feedback) return;
  if (kind === "turn") feedback.impactOccurred?.("medium");
  else if (kind === "win") feedback.notificationOccurred?.("success");
  else if (kind === "error") feedback.notificationOccurred?.("error");
  else feedback.selectionChanged?.();
}

/** Telegram's WebApp when the page runs inside Telegram and its script loaded, and whether
 *  its client speaks Bot API `version` (shareMessage and downloadFile came with 8.0). */
export function telegramApp() {
  return webApp;
}

export function versionAtLeast(version) {
  try {
    return Boolean(webApp?.isVersionAtLeast?.(version));
  } catch {
    return false;
  }
}
