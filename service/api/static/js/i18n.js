// Every word the player reads comes from a per-language catalog (static/i18n/<lang>.json),
// loaded at start: no build step. Numbers and chips go through Intl.NumberFormat, plurals
// through Intl.PluralRules, times through Intl.DateTimeFormat / RelativeTimeFormat, all in
// the chosen language. English is the fallback for a key a catalog lacks (the catalog tests
// keep that from happening) and for a language we do not have.

export const LANGUAGES = ["en", "ru", "bg", "tr", "de", "ar"];
const RTL = new Set(["ar"]);

let lang = "en";
let strings = {};
let english = {};
let plural = new Intl.PluralRules("en");
let numbers = new Intl.NumberFormat("en");
const catalogs = new Map();

async function catalog(code) {
  if (!catalogs.has(code)) {
    catalogs.set(code, fetch(`i18n/${code}.json`).then((resp) => {
      if (!resp.ok) throw new Error(`catalog ${code}: ${resp.status}`);
      return resp.json();
    }).catch((err) => { catalogs.delete(code); throw err; }));
  }
  return catalogs.get(code);
}

/** The supported language a tag names (`ru-RU` → ru), or en. */
export function supported(tag) {
  const primary = String(tag || "").toLowerCase().split(/[-_]/)[0];
  return LANGUAGES.includes(primary) ? primary : "en";
}

/** Switch the whole page to `code`: catalog, formatters, <html lang> and dir. */
export async function setLanguage(code) {
  const want = supported(code);
  english = await catalog("en");
  strings = want === "en" ? english : await catalog(want).catch(() => english);
  lang = strings === english ? "en" : want;
  plural = new Intl.PluralRules(lang);
  numbers = new Intl.NumberFormat(lang);
  document.documentElement.lang = lang;
  document.documentElement.dir = RTL.has(lang) ? "rtl" : "ltr";
  return lang;
}

export function language() { return lang; }
export function isRtl() { return RTL.has(lang); }

function lookup(key) {
  const value = key in strings ? strings[key] : english[key];
  return value === undefined ? key : value;
}

function choose(value, count) {
  if (typeof value === "string") return value;
  return value[plural.select(count)] ?? value.other ?? Object.values(value)[0];
}

/** The catalog's text for `key` with {placeholders} filled; numbers are formatted, and a
 *  plural entry picks its form by `params.count`. */
export function t(key, params = {}) {
  const text = choose(lookup(key), Number(params.count ?? 0));
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? numbers.format(value) : String(value);
  });
}

/** Like `t`, but a parameter may be a DOM node (a name in bold, a card): a list of nodes
 *  and strings to append. */
export function tNodes(key, params = {}) {
  const text = choose(lookup(key), Number(params.count ?? 0));
  const out = [];
  let last = 0;
  for (const match of text.matchAll(/\{(\w+)\}/g)) {
    out.push(text.slice(last, match.index));
    const value = params[match[1]];
    if (value instanceof Node) out.push(value);
    else if (typeof value === "number") out.push(numbers.format(value));
    else out.push(value === undefined ? match[0] : String(value));
    last = match.index + match[0].length;
  }
  out.push(text.slice(last));
  return out.filter((part) => part !== "");
}

export function num(n) { return numbers.format(n); }

/** "30 chips", in the language's plural form. */
export function chips(n) { return t("unit.chips", { count: n }); }

/** A countdown's seconds ("12s", "12 с", …). */
export function seconds(n) {
  return new Intl.NumberFormat(lang, { style: "unit", unit: "second", unitDisplay: "narrow" })
    .format(n);
}

/** A moment of today or tomorrow as the clock shows it ("14:05"). */
export function clockTime(epochSeconds) {
  return new Intl.DateTimeFormat(lang, { hour: "numeric", minute: "2-digit" })
    .format(new Date(epochSeconds * 1000));
}

/** "in 5 hours", "через 3 часа": how long until a moment, roughly. */
export function fromNow(epochSeconds, now = Date.now() / 1000) {
  const left = Math.max(0, epochSeconds - now);
  const format = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
  if (left >= 3600) return format.format(Math.round(left / 3600), "hour");
  if (left >= 60) return format.format(Math.round(left / 60), "minute");
  return format.format(Math.ceil(left), "second");
}

/** A list of names joined the language's way ("Ana and Boris"). */
export function list(items) {
  return new Intl.ListFormat(lang, { style: "long", type: "conjunction" }).format(items);
}
