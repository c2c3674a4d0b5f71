// fairness.js: the browser's dice check gives gammon verify's verdict on the same records
// (fair ones and tampered ones: tests/client/test_client_modules.py).

import assert from "node:assert/strict";
import { test } from "node:test";

import { verifyRecord } from "../../../src/gammon/client/fairness.js";
import { coreFacts, NO_FACTS } from "./support.mjs";

const facts = coreFacts();

test("each record is fair to the browser exactly when gammon verify finds it so", { skip: facts ? false : NO_FACTS }, async () => {
  assert.ok(facts.fairness.some((c) => c.fair) && facts.fairness.some((c) => !c.fair));
  for (const { record, fair } of facts.fairness) {
    const { problems, count } = await verifyRecord(record);
    assert.equal(problems.length === 0, fair, JSON.stringify({ record, problems }));
    assert.ok(count > 0);
  }
});

test("a record whose seed does not hash to the commitment is refused", async () => {
  const { problems } = await verifyRecord({
    server_seed: "00".repeat(32), seed_hash: "ff".repeat(32), client_seeds: ["a", "b"],
    winner_rolls_anew: false, actions: [],
  });
  assert.equal(problems.length, 1);
  assert.match(problems[0], /hashes to/);
});
