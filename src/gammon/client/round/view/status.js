// @ts-check
// round/view/status.js — the match's header (the players, the kind of match), the banner of
// an open match (its invite link, or a Join button) and the status line, from the controller.

import { pageTitle } from "../../attention.js";
import { t } from "../../i18n.js";
import { copyText, h, kindText, toast } from "../../ui.js";

/** @typedef {import("../ctrl.js").RoundCtrl} RoundCtrl */

/** The status line's words: whose turn it is and what they may do. @param {RoundCtrl} ctrl */
export function statusText(ctrl) {
  const g = ctrl.game;
  const info = ctrl.info;
  if (!ctrl.online) return t("status.reconnecting");
  if (!info) return t("match.loading");
  if (info.status === "open") return t("status.waiting_opponent");
  if (!g) return "";
  const other = ctrl.isPlayer ? ctrl.name(1 - /** @type {number} */ (ctrl.you)) : null;
  switch (g.phase) {
    case "opening": return t("status.opening");
    case "before_roll":
      if (ctrl.myTurn) return ctrl.canDouble() ? t("status.roll_or_double") : t("status.roll");
      return t("status.other_rolls", { name: ctrl.name(g.turn) });
    case "moving":
      if (ctrl.myTurn) {
        if (ctrl.canConfirm()) return t("status.confirm");
        return t("status.move", { dice: (g.dice_left || []).slice().sort((/** @type {number} */ a, /** @type {number} */ b) => b - a).join(" ") });
      }
      return t("status.other_moves", { name: ctrl.name(g.turn) });
    case "cube_offered":
      return g.turn === ctrl.you ? t("status.wait_cube", { name: other }) : t("status.cube_offered", { name: ctrl.name(g.turn) });
    case "resign_offered":
      return g.turn === ctrl.you ? t("status.wait_resign", { name: other }) : t("status.resign_offered", { name: ctrl.name(g.turn) });
    case "game_over": return t("status.game_over");
    case "match_over": return t("over.winner", { name: ctrl.name(g.winner) });
    default: return "";
  }
}

/** The status line: the controller's message (advice, a refusal), else the status.
 *  @param {HTMLElement} line @param {RoundCtrl} ctrl */
export function drawStatus(line, ctrl) {
  line.textContent = ctrl.message || statusText(ctrl);
  line.classList.toggle("error", !!ctrl.message && ctrl.messageError);
}

/** The header: the players' names (the page's title too) and what kind of match this is.
 *  @param {{title: HTMLElement, meta: HTMLElement}} head @param {RoundCtrl} ctrl */
export function drawHead({ title, meta }, ctrl) {
  const info = ctrl.info;
  if (!info) return;
  const names = `${ctrl.name(0)} – ${ctrl.name(1)}`;
  title.textContent = names;
  const parts = [kindText(info)];
  if (info.clock && info.clock !== "none") parts.push(t(`clock.kind_${info.clock}`));
  if (info.rated) parts.push(t("match.rated"));
  if (!ctrl.isPlayer) parts.push(t("match.watching"));
  meta.textContent = parts.join(" · ");
  pageTitle(`${names} · gammon`);
}

/** An open match: its creator sees the invite link (to copy) and a Cancel button, anyone
 *  else a Join button. @param {HTMLElement} box @param {RoundCtrl} ctrl @param {any} me the signed-in player */
export function drawWaiting(box, ctrl, me) {
  const info = ctrl.info;
  box.replaceChildren();
  if (!info || info.status !== "open") return;
  const url = `${location.origin}${location.pathname}#/match/${ctrl.id}${ctrl.query}`;
  if (info.seats?.[0]?.id === me?.id) {
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "text", readonly: true, value: url, "aria-label": t("match.invite_link") }));
    box.append(h("div", { class: "banner stack" },
      h("p", {}, h("strong", {}, t("match.waiting_title")), " ", t("match.waiting_text")),
      h("div", { class: "invite" }, input,
        h("button", { type: "button", onclick: async () => {
          input.select();
          toast((await copyText(url)) ? t("match.copied") : t("match.copy_manually"));
        } }, t("match.copy_link")),
        h("button", { type: "button", class: "danger", onclick: () => ctrl.cancelOpen() }, t("match.cancel_game")))));
  } else {
    box.append(h("div", { class: "banner row" },
      h("span", {}, t("match.open_by", { name: info.seats?.[0]?.name ?? "?" })),
      h("button", { type: "button", class: "primary", onclick: () => ctrl.join() }, t("lobby.join"))));
  }
}
