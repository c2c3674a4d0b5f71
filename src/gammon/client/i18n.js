// @ts-check
// i18n.js — the strings of the client, one JSON file per language in i18n/.
//
// t("lobby.title") looks a key up in the current language, then in English; {name}
// placeholders are filled from the params. Elements with data-i18n (text),
// data-i18n-label (aria-label) or data-i18n-title (title) are translated by apply().

export const LANGUAGES = {
  en: "English",
  it: "Italiano",
  fr: "Français",
  pl: "Polski",
  hu: "Magyar",
  co: "Corsu",
};

const cache = new Map();
let current = "en";
let strings = {};
let fallback = {};

async function load(lang) {
  if (!cache.has(lang)) {
    const response = await fetch(`i18n/${lang}.json`);
    if (!response.ok) throw new Error(`no strings for ${lang}`);
    cache.set(lang, await response.json());
  }
  return cache.get(lang);
}

/** The best supported language for this browser (navigator.languages, then English). */
export function browserLanguage() {
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return "en";
}

export async function setLanguage(lang) {
  if (!(lang in LANGUAGES)) lang = "en";
  fallback = await load("en");
  strings = await load(lang);
  current = lang;
  document.documentElement.lang = lang;
  try { localStorage.setItem("gammon.language", lang); } catch { /* private mode */ }
  return lang;
}

export function language() {
  return current;
}

export function t(key, params = {}) {
  let s = strings[key] ?? fallback[key];
  if (s === undefined) return key;
  if (typeof s === "object") {
    // plural forms: {"one": ..., "few": ..., "many": ..., "other": ...}
    const rule = new Intl.PluralRules(current).select(Number(params.count ?? 0));
    s = s[rule] ?? s.other;
  }
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Translate the marked elements under `root`.
 *  @param {ParentNode} [root] */
export function apply(root = document) {
  /** @param {string} selector */
  const marked = (selector) => /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(selector));
  for (const node of marked("[data-i18n]")) node.textContent = t(String(node.dataset.i18n));
  for (const node of marked("[data-i18n-label]")) node.setAttribute("aria-label", t(String(node.dataset.i18nLabel)));
  for (const node of marked("[data-i18n-title]")) node.setAttribute("title", t(String(node.dataset.i18nTitle)));
  for (const node of marked("[data-i18n-placeholder]")) node.setAttribute("placeholder", t(String(node.dataset.i18nPlaceholder)));
}
