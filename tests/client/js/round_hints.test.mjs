// What the match page's hint asks the server (src/gammon/client/round/hints.js): the game
// view's own Match ID, never one the page packs itself. Run by
// tests/client/test_client_modules.py (node --test).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { hintRequestOf } from "../../../src/gammon/client/round/hints.js";

const INFO = { bot: "gnubg", clock: "none", rated: false, beavers: true };
const CUBE = { value: 2, owner: 1, enabled: true };

describe("a hint's request", () => {
  test("before the roll: the cube decision at the view's Match ID, beavers as the match", () => {
    const g = { phase: "before_roll", game: 2, position_id: "4HPwATDgc/ABMA", cube: CUBE, length: 5, match_id: "cAkAAAAAAAAA" };
    assert.deepEqual(hintRequestOf(g, INFO, null), {
      kind: "cube", key: "cube:2:4HPwATDgc/ABMA:cAkAAAAAAAAA", path: "/api/eval",
      body: { position_id: "4HPwATDgc/ABMA", plies: 2, match_id: "cAkAAAAAAAAA", beavers: true },
    });
  });

  test("while moving: the plays from the turn's start, at the view's Match ID", () => {
    const g = { phase: "moving", game: 2, position_id: "x", cube: CUBE, length: 5, match_id: "cIkqAAAAAAAA" };
    const request = hintRequestOf(g, INFO, { position_id: "4HPwATDgc/ABMA", dice: "31" });
    assert.deepEqual(request?.body, { position_id: "4HPwATDgc/ABMA", dice: "31", plies: 2, match_id: "cIkqAAAAAAAA" });
    assert.equal(request?.path, "/api/hint");
  });

  test("a game with no cube to turn asks only the chances, with no Match ID", () => {
    const g = { phase: "before_roll", game: 1, position_id: "p", cube: { ...CUBE, enabled: false }, length: 0, match_id: "cAkAAAAAAAAA" };
    assert.deepEqual(hintRequestOf(g, INFO, null)?.body, { position_id: "p", plies: 2 });
  });

  test("mid-move without the turn's start: undo first; another phase: nothing", () => {
    assert.deepEqual(hintRequestOf({ phase: "moving", match_id: "x" }, INFO, null), { kind: "undo", key: "undo" });
    assert.equal(hintRequestOf({ phase: "game_over", match_id: null }, INFO, null), null);
  });
});
