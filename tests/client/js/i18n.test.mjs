// i18n.js: a key looked up in the language, then in English; placeholders; plural forms by
// the language's rules.

import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { clientFetch } from "./support.mjs";

globalThis.document = /** @type {any} */ ({ documentElement: {} });
// Corsican's strings served without one key, to see the English one stand in
globalThis.fetch = /** @type {any} */ (clientFetch((path, json) => {
  if (path.endsWith("co.json")) delete json["moves.game"];
  return json;
}));

const i18n = await import("../../../src/gammon/client/i18n.js");

describe("t", () => {
  before(async () => { await i18n.setLanguage("en"); });

  test("fills the placeholders it is given and leaves the others", async () => {
    await i18n.setLanguage("en");
    assert.equal(i18n.t("log.played", { name: "Ann", moves: "8/5 6/5" }), "Ann played 8/5 6/5.");
    assert.equal(i18n.t("log.played", { name: "Ann" }), "Ann played {moves}.");
  });

  test("answers an unknown key with the key", () => {
    assert.equal(i18n.t("no.such.key"), "no.such.key");
  });

  test("chooses the plural form by the language's rules", async () => {
    await i18n.setLanguage("en");
    assert.equal(i18n.t("game.match_to", { count: 1 }), "Match to 1 point");
    assert.equal(i18n.t("game.match_to", { count: 5 }), "Match to 5 points");
    await i18n.setLanguage("pl");
    assert.equal(i18n.t("game.match_to", { count: 1 }), "Mecz do 1 punktu");
    assert.equal(i18n.t("game.match_to", { count: 3 }), "Mecz do 3 punktów"); // few
    assert.equal(i18n.t("game.match_to", { count: 5 }), "Mecz do 5 punktów"); // many
    assert.equal(i18n.t("game.match_to", { count: 22 }), "Mecz do 22 punktów"); // few
  });

  test("falls back to English for a key the language lacks", async () => {
    await i18n.setLanguage("co");
    assert.equal(i18n.language(), "co");
    assert.equal(i18n.t("moves.game", { number: 2 }), "Game 2");
  });

  test("takes English for a language it does not have", async () => {
    assert.equal(await i18n.setLanguage("xx"), "en");
    assert.equal(i18n.language(), "en");
    assert.equal(globalThis.document.documentElement.lang, "en");
  });
});

describe("every language", () => {
  test("has every English key, each plural with an `other` form", async () => {
    const fetchJson = async (/** @type {string} */ path) => (await globalThis.fetch(path)).json();
    const english = await fetchJson("i18n/en.json");
    for (const lang of Object.keys(i18n.LANGUAGES)) {
      const strings = await fetchJson(`i18n/${lang}.json`);
      for (const [key, value] of Object.entries(strings)) {
        if (typeof value === "object") assert.ok("other" in value, `${lang} ${key}`);
      }
      if (lang !== "co") assert.deepEqual(Object.keys(strings).sort(), Object.keys(english).sort(), lang);
    }
  });
});
