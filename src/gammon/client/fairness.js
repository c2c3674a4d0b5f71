// fairness.js — check a finished match's dice in the browser, independently of the server
// (the same recipe as gammon.server.fairness and `gammon verify`):
//   the revealed server seed must hash (SHA-256) to the commitment published before play;
//   the n-th dice action's dice are bytes of HMAC-SHA256(key = server seed bytes,
//   msg = "{client seed 0}:{client seed 1}:{n}:{block}"), block = 0, 1, ..., each byte
//   b < 252 giving the die b % 6 + 1 (bytes 252..255 skipped).

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function toHex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Every die of every dice action, in order (as the server stores them). */
export function rollsOf(actions) {
  const out = [];
  for (const action of actions) {
    if (action.t === "opening") {
      const dice = action.throws.flat();
      if (action.anew) dice.push(...action.roll);
      out.push(dice);
    } else if (action.t === "roll") {
      out.push([...action.roll]);
    }
  }
  return out;
}

export async function verifyRecord(record) {
  const problems = [];
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return { problems: ["this browser cannot compute SHA-256 here (needs a secure context)"], count: 0 };
  const seed = hexBytes(record.server_seed);
  const hash = toHex(await subtle.digest("SHA-256", seed));
  if (hash !== record.seed_hash) problems.push(`the seed hashes to ${hash}, not to the published ${record.seed_hash}`);
  const key = await subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const encoder = new TextEncoder();
  const prefix = `${record.client_seeds[0]}:${record.client_seeds[1]}`;
  const rolls = rollsOf(record.actions);
  for (let n = 0; n < rolls.length; n++) {
    const rolled = rolls[n];
    const expected = [];
    let block = 0;
    let buffer = new Uint8Array(0);
    let used = 0;
    while (expected.length < rolled.length) {
      if (used === buffer.length) {
        const mac = await subtle.sign("HMAC", key, encoder.encode(`${prefix}:${n}:${block}`));
        buffer = new Uint8Array(mac);
        block += 1;
        used = 0;
      }
      const byte = buffer[used++];
      if (byte < 252) expected.push((byte % 6) + 1);
    }
    if (expected.join() !== rolled.join()) problems.push(`dice action ${n}: rolled ${rolled.join("-")}, the seeds give ${expected.join("-")}`);
  }
  return { problems, count: rolls.length };
}
