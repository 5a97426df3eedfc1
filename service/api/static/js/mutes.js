// Players this device does not want to hear in the quick chat: kept in localStorage (on the
// device only, never sent), as {user_id: name} so the chat log can list them to unmute.
const KEY = "svara:chat-muted";

function load() {
  try {
    const data = JSON.parse(localStorage.getItem(KEY) || "{}");
    return data && typeof data === "object" && !Array.isArray(data) ? data : {};
  } catch {
    return {};
  }
}

function save(data) {
  try { localStorage.setItem(KEY, JSON.stringify(data)); } catch { /* private mode: this visit only */ }
}

export function isMuted(userId) {
  return Object.hasOwn(load(), String(userId));
}

export function mute(userId, name) {
  save({ ...load(), [String(userId)]: String(name ?? "") });
}

export function unmute(userId) {
  const data = load();
  delete data[String(userId)];
  save(data);
}

/** [[user_id, name]] of every muted player. */
export function muted() {
  return Object.entries(load()).map(([id, name]) => [Number(id), name]);
}
