// The lobby's controller (src/gammon/client/pages/lobby/ctrl.js) in Node, with no DOM: the
// socket's challenges messages in, what it tells the player and where it goes out, over an
// HTTP stand-in that records what it is asked. Run by tests/client/test_client_modules.py
// (node --test).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { LobbyCtrl } from "../../../src/gammon/client/pages/lobby/ctrl.js";

assert.equal(typeof document, "undefined", "the controller is tested without a DOM");

/** A controller for player `me`; the server answers `GET /api/games/ID` with `status`
 *  and refuses the requests in `refused` ("METHOD path"). */
function setUp({ status = "playing", refused = [] } = {}) {
  const said = [];
  const went = [];
  const asked = [];
  const changed = [];
  const ctrl = new LobbyCtrl({
    me: () => ({ id: "u1", kind: "user", name: "ann" }),
    api: async (method, path) => {
      asked.push(`${method} ${path}`);
      if (refused.includes(`${method} ${path}`)) throw Object.assign(new Error("refused"), { code: "conflict" });
      return method === "GET" ? { info: { status } } : {};
    },
    navigate: (hash) => went.push(hash),
    notify: (text, options) => said.push(options?.error ? `error: ${text}` : text),
    current: () => true,
    changed: (part) => changed.push(part),
  });
  return { ctrl, said, went, asked, changed };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const BOB = { id: "g1", creator: { name: "bob" }, opponent: { name: "cy" } };

describe("the lobby's challenges", () => {
  test("the first message tells nothing; a challenge new after it is told", () => {
    const { ctrl, said, changed } = setUp();
    ctrl.setChallenges({ received: [BOB], sent: [] });
    assert.deepEqual(said, []);
    ctrl.setChallenges({ received: [BOB, { id: "g2", creator: { name: "dee" } }], sent: [] });
    assert.deepEqual(said, ["lobby.challenged_by"]);
    assert.deepEqual(changed, ["challenges", "challenges"]);
  });

  test("one of this player's taken opens the match; one declined is told", async () => {
    const taken = setUp({ status: "playing" });
    taken.ctrl.setChallenges({ received: [], sent: [BOB] });
    taken.ctrl.setChallenges({ received: [], sent: [] });
    await settle();
    assert.deepEqual(taken.went, ["#/match/g1"]);
    const declined = setUp({ status: "cancelled" });
    declined.ctrl.setChallenges({ received: [], sent: [BOB] });
    declined.ctrl.setChallenges({ received: [], sent: [] });
    await settle();
    assert.deepEqual(declined.went, []);
    assert.deepEqual(declined.said, ["lobby.challenge_declined"]);
  });

  test("one withdrawn here goes without a word of a decline", async () => {
    const { ctrl, said, asked } = setUp({ status: "cancelled" });
    ctrl.setChallenges({ received: [], sent: [BOB] });
    assert.equal(await ctrl.withdraw(BOB), true);
    ctrl.setChallenges({ received: [], sent: [] });
    await settle();
    assert.deepEqual(asked, ["DELETE /api/games/g1"]);
    assert.deepEqual(said, ["lobby.withdrawn"]);
  });

  test("a withdrawal refused (taken meanwhile) leaves it waiting; gone, its match opens", async () => {
    const { ctrl, said, went } = setUp({ status: "playing", refused: ["DELETE /api/games/g1"] });
    ctrl.setChallenges({ received: [], sent: [BOB] });
    assert.equal(await ctrl.withdraw(BOB), false);
    assert.deepEqual(said, ["error: refused"]);
    assert.deepEqual(went, []);
    ctrl.setChallenges({ received: [], sent: [] });
    await settle();
    assert.deepEqual(went, ["#/match/g1"]);
  });
});

describe("a game made in the lobby", () => {
  test("a challenge is told and stays; another game opens at its invite", async () => {
    const { ctrl, said, went, asked } = setUp();
    ctrl.deps.api = async (method, path, body) => { asked.push(`${method} ${path} ${body.length}`); return { invite: "/#/match/g9" }; };
    await ctrl.create({ kind: "single", length: 7, opponent: "bob" });
    await ctrl.create({ kind: "match", length: 7 });
    assert.deepEqual(asked, ["POST /api/games 1", "POST /api/games 7"]);
    assert.deepEqual(said, ["lobby.challenge_sent"]);
    assert.deepEqual(went, ["#/match/g9"]);
  });

  test("a refusal is said in the player's language where its reason is known", () => {
    const { ctrl } = setUp();
    assert.equal(ctrl.refusal({ code: "too_many_games", message: "x" }), "error.too_many_games");
    assert.equal(ctrl.refusal({ code: "not_found", message: "x" }, "bob"), "lobby.error_no_player");
    assert.equal(ctrl.refusal({ code: "not_found", message: "no such game" }), "no such game");
  });
});
