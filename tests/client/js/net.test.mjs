// The client's HTTP call (src/gammon/client/net.js `api`) in Node, over a stand-in fetch: a
// 503 refusal that names its Retry-After is asked again after that wait, at most
// BUSY_RETRIES times; any other answer, or a wait it will not keep, is final. Run by
// tests/client/test_client_modules.py.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError, BUSY_MAX_WAIT_S, BUSY_RETRIES, api } from "../../../src/gammon/client/net.js";

const busy = (retryAfter) => ({
  status: 503, ok: false, statusText: "Service Unavailable",
  headers: new Headers({ "content-type": "application/json", ...(retryAfter === null ? {} : { "retry-after": retryAfter }) }),
  json: async () => ({ detail: { code: "busy", message: "the server is busy" } }),
});
const created = { status: 201, ok: true, headers: new Headers({ "content-type": "application/json" }), json: async () => ({ id: "m1" }) };

/** `api` over answers given in order; returns what it resolved or threw, the requests and the waits. */
async function call(answers) {
  const requests = [];
  const waits = [];
  globalThis.fetch = async (path, init) => { requests.push(`${init.method} ${path} ${init.body}`); return answers.shift(); };
  let result;
  try {
    result = await api("POST", "/api/matches", { length: 5 }, { wait: async (ms) => { waits.push(ms); } });
  } catch (error) {
    result = error;
  }
  return { result, requests, waits };
}

test("a busy refusal with a Retry-After is sent again after that wait, the same request", async () => {
  const { result, requests, waits } = await call([busy("3"), created]);
  assert.deepEqual(result, { id: "m1" });
  assert.deepEqual(waits, [3000]);
  assert.equal(requests.length, 2);
  assert.equal(requests[0], requests[1]);
});

test("it gives up after BUSY_RETRIES tries again and says busy", async () => {
  const { result, requests, waits } = await call(Array.from({ length: BUSY_RETRIES + 3 }, () => busy("1")));
  assert.ok(result instanceof ApiError);
  assert.equal(result.status, 503);
  assert.equal(result.code, "busy");
  assert.equal(requests.length, BUSY_RETRIES + 1);
  assert.deepEqual(waits, Array(BUSY_RETRIES).fill(1000));
});

test("a refusal without a Retry-After, or with one too long, is final", async () => {
  for (const header of [null, String(BUSY_MAX_WAIT_S + 1), "Wed, 21 Oct 2026 07:28:00 GMT"]) {
    const { result, requests, waits } = await call([busy(header), created]);
    assert.equal(result.code, "busy", String(header));
    assert.equal(requests.length, 1);
    assert.deepEqual(waits, []);
  }
});

test("other errors are not sent again", async () => {
  const refused = { status: 409, ok: false, statusText: "Conflict", headers: new Headers({ "content-type": "application/json", "retry-after": "1" }), json: async () => ({ detail: { code: "not_your_turn", message: "not your turn" } }) };
  const { result, requests } = await call([refused, created]);
  assert.equal(result.code, "not_your_turn");
  assert.equal(requests.length, 1);
});
