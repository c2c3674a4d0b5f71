// @ts-check
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

/** The dice of the n-th dice action: a function giving the next die. */
function dieStream(subtle, key, prefix, n) {
  const encoder = new TextEncoder();
  let block = 0;
  let buffer = new Uint8Array(0);
  let used = 0;
  return async () => {
    for (;;) {
      if (used === buffer.length) {
        buffer = new Uint8Array(await subtle.sign("HMAC", key, encoder.encode(`${prefix}:${n}:${block}`)));
        block += 1;
        used = 0;
      }
      const byte = buffer[used++];
      if (byte < 252) return (byte % 6) + 1;
    }
  };
}

/** The opening the seeds give: throws until no tie, who moves first, the roll played
 * (the deciding throw, or with "winner rolls anew" two more dice). */
async function expectedOpening(die, anew) {
  const throws = [];
  for (;;) {
    const pair = [await die(), await die()];
    throws.push(pair);
    if (pair[0] !== pair[1]) break;
  }
  const [mine, theirs] = throws[throws.length - 1];
  const first = mine > theirs ? 0 : 1;
  const roll = anew ? [await die(), await die()] : first === 0 ? [mine, theirs] : [theirs, mine];
  return { first, throws, roll };
}

const text = (value) => JSON.stringify(value);

/** Every die of a fairness record recomputed, as `gammon verify` does: each opening's
 * throws, the player it names first and the roll played; each roll. */
export async function verifyRecord(record) {
  const problems = [];
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return { problems: ["this browser cannot compute SHA-256 here (needs a secure context)"], count: 0 };
  const seed = hexBytes(record.server_seed);
  const hash = toHex(await subtle.digest("SHA-256", seed));
  if (hash !== record.seed_hash) problems.push(`the seed hashes to ${hash}, not to the published ${record.seed_hash}`);
  const key = await subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const prefix = `${record.client_seeds[0]}:${record.client_seeds[1]}`;
  const actions = record.actions.filter((a) => a.t === "opening" || a.t === "roll");
  for (let n = 0; n < actions.length; n++) {
    const action = actions[n];
    const die = dieStream(subtle, key, prefix, n);
    if (action.t === "opening") {
      const last = action.throws[action.throws.length - 1] || [];
      // records saved before the option was published: the option is guessed from the
      // opening (its roll is not the deciding throw) for the message, and either option is
      // accepted (with it, the winner's new roll may repeat the deciding throw's numbers)
      const flag = record.winner_rolls_anew;
      const anew = flag ?? text([...action.roll].sort()) !== text([...last].sort());
      const want = await expectedOpening(die, anew);
      const got = { first: action.first, throws: action.throws, roll: action.roll };
      if (text(got) !== text(want)) {
        const other = flag == null ? await expectedOpening(dieStream(subtle, key, prefix, n), !anew) : null;
        if (!other || text(got) !== text(other)) problems.push(`dice action ${n}: opening ${text(got)}, the seeds give ${text(want)}`);
      }
    } else {
      const want = [await die(), await die()];
      if (text(action.roll) !== text(want)) problems.push(`dice action ${n}: rolled ${action.roll.join("-")}, the seeds give ${want.join("-")}`);
    }
  }
  return { problems, count: actions.length };
}
