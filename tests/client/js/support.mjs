// What the client's unit tests share: the client's modules, what the core says of the
// reference positions (written by tests/client/test_client_modules.py), and a fetch that serves
// the client's files (i18n.js loads its strings with it).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const CLIENT = new URL("../../../src/gammon/client/", import.meta.url);

/** The core's facts (core_facts() of test_client_modules.py), or null when run without them. */
export function coreFacts() {
  const path = process.env.GAMMON_CORE_FACTS;
  return path ? JSON.parse(readFileSync(path, "utf8")) : null;
}

export const NO_FACTS = "run through tests/client/test_client_modules.py, which writes the core's facts";

/** A fetch of the client's own files (relative to its folder); `edit(path, json)` may
 *  change a JSON file as served. */
export function clientFetch(edit = (_path, json) => json) {
  return async (path) => {
    let text;
    try {
      text = readFileSync(fileURLToPath(new URL(path, CLIENT)), "utf8");
    } catch {
      return { ok: false, json: async () => null };
    }
    return { ok: true, json: async () => edit(path, JSON.parse(text)) };
  };
}

/** A board seen from the other side (gammon.core.position.Position.swap). */
export function swapBoard(board) {
  return board.map((_, i) => -board[25 - i] || 0);
}
