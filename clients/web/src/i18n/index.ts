// The wording layer: every word a player reads comes from here (en.ts, cs.ts), never from the API. The
// language follows the browser (navigator.languages: the first of ours it names) until the player picks one
// with the switch in the header, which is remembered in localStorage. The catalog (card and character names
// and texts) is asked for in the same language (GetRuleset's language_code), so a page never mixes two.
//
// A message is a string with {named} holes; a counted one holds its plural forms split by "|", in the
// order of the language's plural categories (English: one|other; Czech: one|few|other), chosen with
// Intl.PluralRules. tests/web/test_wording.py fails when a key is missing in either language or the two
// disagree on a message's holes.

import { cs } from "./cs.js";
import { en } from "./en.js";

export type Key = keyof typeof en;
export type Language = "en" | "cs";
export const LANGUAGES: readonly Language[] = ["en", "cs"];

const DICTIONARIES: Record<Language, Record<Key, string>> = { en, cs };
const ORDER: Record<Language, string[]> = { en: ["one", "other"], cs: ["one", "few", "other"] };
const STORE = "tabletop:language";

let current: Language = initial();

/** The page's language. */
export function language(): Language {
  return current;
}

/** Switch the page's language (remembered for the next visit); the caller redraws. */
export function setLanguage(next: Language): void {
  current = next;
  localStorage.setItem(STORE, next);
  document.documentElement.lang = next;
}

/** A message with its holes filled ("{name} drew a card"). */
export function t(key: Key, params: Record<string, string | number> = {}): string {
  return fill(DICTIONARIES[current][key] ?? en[key], params);
}

/** A counted message: the plural form for `n` (also the hole {n}). */
export function tn(key: Key, n: number, params: Record<string, string | number> = {}): string {
  const forms = (DICTIONARIES[current][key] ?? en[key]).split("|");
  const category = new Intl.PluralRules(current).select(n);
  const index = ORDER[current].indexOf(category);
  const form = forms[index < 0 ? forms.length - 1 : Math.min(index, forms.length - 1)] ?? "";
  return fill(form, { n, ...params });
}

/** Whether `key` names a message (reasons and kinds the server may add later fall back to a general one). */
export function has(key: string): key is Key {
  return key in en;
}

// Helpers

function initial(): Language {
  const stored = localStorage.getItem(STORE);
  if (stored === "en" || stored === "cs") {
    document.documentElement.lang = stored;
    return stored;
  }
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split("-")[0];
    if (base === "cs" || base === "en") {
      document.documentElement.lang = base;
      return base;
    }
  }
  return "en";
}

function fill(text: string, params: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (hole, name: string) => (name in params ? String(params[name]) : hole));
}
