// @ts-check
// round/refusal.js — a refusal from the server in the player's words.

import { t } from "../i18n.js";

/** A refusal in the player's language, from its reason code (PROTOCOL.md, "Error codes"; an
 *  `illegal` one by its `reason`); the server's English text only for a code this client
 *  does not know. @param {{code: string, reason?: string, message?: string}} error */
export function refusalText(error) {
  const key = error.code === "illegal" ? `error.illegal_${error.reason || "not_allowed"}` : `error.${error.code}`;
  const text = t(key);
  return text !== key ? text : `${t("error.refused")} ${error.message || ""}`;
}
