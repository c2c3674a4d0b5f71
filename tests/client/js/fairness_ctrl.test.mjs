// The dice check's controller (src/gammon/client/pages/fairness/ctrl.js) in Node, with no
// DOM: what it asks the server, what it holds after each answer (the statistics and their
// chi-squared, a match's record checked die by die), over an HTTP stand-in that records
// what it is asked. Run by tests/client/test_client_modules.py (node --test).

import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { describe, test } from "node:test";

import { FairnessCtrl } from "../../../src/gammon/client/pages/fairness/ctrl.js";

assert.equal(typeof document, "undefined", "the controller is tested without a DOM");

const SEED = "5e".repeat(32);
const CLIENT_SEEDS = ["ann", "bob"];

/** The two dice the seeds give the `n`-th dice action (as gammon.server.fairness does). */
function diceOf(n) {
  const dice = [];
  for (let block = 0; dice.length < 2; block++) {
    const bytes = createHmac("sha256", Buffer.from(SEED, "hex")).update(`${CLIENT_SEEDS.join(":")}:${n}:${block}`).digest();
    for (const b of bytes) if (b < 252 && dice.length < 2) dice.push((b % 6) + 1);
  }
  return dice;
}

/** A finished match's record: its seed revealed, two rolls (`rolls` in place of the
 *  seeds' own, to tamper with them). */
function record({ rolls = [diceOf(0), diceOf(1)], revealed = true } = {}) {
  return {
    match: "m 1", seed_hash: createHash("sha256").update(Buffer.from(SEED, "hex")).digest("hex"),
    client_seeds: CLIENT_SEEDS, winner_rolls_anew: false, server_seed: revealed ? SEED : null,
    actions: rolls.map((roll, v) => ({ t: "roll", roll, v })),
  };
}

/** A controller for the route's match `id`; the server answers each "METHOD path" of
 *  `answers` (a function throws: refused). */
function setUp(id, answers) {
  const asked = [];
  const changed = [];
  const ctrl = new FairnessCtrl(id, {
    api: async (method, path) => {
      asked.push(`${method} ${path}`);
      const answer = answers[`${method} ${path}`];
      if (answer === undefined) throw Object.assign(new Error("no such game"), { status: 404, code: "not_found" });
      if (typeof answer === "function") return answer();
      return structuredClone(answer);
    },
    changed: (part) => changed.push(`${part}:${ctrl.result?.status ?? ""}`),
  });
  return { ctrl, asked, changed };
}

const STATS = "GET /api/dice-stats";

/** Wait (a few milliseconds at a time) until `done()`: the check's hashing is asynchronous. */
async function until(done) {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(done(), "waited in vain");
}

describe("a match's dice checked in the browser", () => {
  test("the route's match is checked at the start: its record asked, every die recomputed and found fair", async () => {
    const { ctrl, asked, changed } = setUp("m 1", { [STATS]: { faces: [1, 1, 1, 1, 1, 1], dice: 6, rolls: {} }, "GET /api/games/m%201/fairness": record() });
    await ctrl.start();
    await until(() => ctrl.result?.status !== "loading");
    assert.deepEqual(asked, ["GET /api/games/m%201/fairness", STATS]);
    assert.equal(ctrl.result?.status, "checked");
    assert.deepEqual(ctrl.result.problems, []);
    assert.equal(ctrl.result.count, 2);
    assert.equal(ctrl.verdict, "fairness.verified");
    assert.equal(changed[0], "check:loading", "the wait is shown at once");
  });

  test("a roll the seeds do not give fails the check, with the roll named", async () => {
    const [a, b] = diceOf(1);
    const tampered = [a, b === 6 ? 1 : b + 1];
    const { ctrl } = setUp("", { "GET /api/games/m1/fairness": record({ rolls: [diceOf(0), tampered] }) });
    await ctrl.check("  m1 ");
    assert.equal(ctrl.result?.status, "checked");
    assert.equal(ctrl.result.problems.length, 1);
    assert.match(ctrl.result.problems[0], /dice action 1: rolled/);
    assert.equal(ctrl.verdict, "fairness.failed");
  });

  test("a match still playing shows its commitment only: nothing is recomputed", async () => {
    const { ctrl } = setUp("", { "GET /api/games/m1/fairness": record({ revealed: false }) });
    await ctrl.check("m1");
    assert.equal(ctrl.result?.status, "sealed");
    assert.equal(ctrl.result.record.seed_hash, record().seed_hash);
    assert.equal(ctrl.verdict, "");
  });

  test("an unknown match is said in the player's language; another refusal in the server's words", async () => {
    const { ctrl } = setUp("", { "GET /api/games/m2/fairness": () => { throw Object.assign(new Error("database away"), { status: 503 }); } });
    await ctrl.check("nope");
    assert.deepEqual(ctrl.result, { status: "refused", id: "nope", error: "replay.not_found" });
    await ctrl.check("m2");
    assert.deepEqual(ctrl.result, { status: "refused", id: "m2", error: "database away" });
  });

  test("a blank match id asks nothing", async () => {
    const { ctrl, asked, changed } = setUp("", {});
    await ctrl.check("   ");
    assert.deepEqual(asked, []);
    assert.deepEqual(changed, []);
    assert.equal(ctrl.result, null);
  });
});

describe("the dice statistics", () => {
  test("even faces are uniform: each face's share and bar against a fair die's count", async () => {
    const { ctrl, asked } = setUp(undefined, { [STATS]: { faces: [100, 100, 100, 100, 100, 100], dice: 600, rolls: {} } });
    await ctrl.start();
    assert.deepEqual(asked, [STATS]);
    const s = ctrl.summary;
    assert.ok(s);
    assert.equal(s.total, 600);
    assert.equal(s.chi, 0);
    assert.equal(s.uniform, true);
    assert.deepEqual(s.faces.map((f) => f.face), [1, 2, 3, 4, 5, 6]);
    assert.ok(s.faces.every((f) => Math.abs(f.share - 100 / 6) < 1e-9));
    assert.ok(Math.abs(s.expectedAt - 100 / 1.1) < 1e-9, "a fair die's count is the scale's top but a tenth");
  });

  test("a face far too common is suspicious: the chi-squared past its 95% point", async () => {
    const { ctrl } = setUp("", { [STATS]: { faces: [160, 88, 88, 88, 88, 88], dice: 600, rolls: {} } });
    await ctrl.start();
    const s = ctrl.summary;
    assert.ok(s);
    assert.ok(Math.abs(s.chi - (60 ** 2 + 5 * 12 ** 2) / 100) < 1e-9);
    assert.equal(s.uniform, false);
    assert.equal(s.faces[0].width, 100 / 1.1, "the most common face spans the scale but a tenth");
  });

  test("no dice yet, or the statistics refused: nothing to summarise, the refusal held", async () => {
    const none = setUp("", { [STATS]: { faces: [0, 0, 0, 0, 0, 0], dice: 0, rolls: {} } });
    await none.ctrl.start();
    assert.equal(none.ctrl.summary, null);
    assert.equal(none.ctrl.statsError, "");
    const refused = setUp("", { [STATS]: () => { throw new Error("database away"); } });
    await refused.ctrl.start();
    assert.equal(refused.ctrl.summary, null);
    assert.equal(refused.ctrl.statsError, "database away");
    assert.deepEqual(refused.changed, ["stats:"]);
  });
});
