// @ts-check
// round/view/log.js — the match's move list (movelist.js's rows, each a link to the replay at
// that move) and the chat, from the controller.

import { t } from "../../i18n.js";
import { moveRows, renderMoveList } from "../../movelist.js";
import { h } from "../../ui.js";

/** @typedef {import("../ctrl.js").RoundCtrl} RoundCtrl */

/** The move list, drawn again only when the events or the names changed. */
export class MoveListView {
  constructor() {
    this.el = h("div", { class: "movelist", role: "log", "aria-label": t("match.log"), tabindex: 0 });
    this.key = "";
  }

  /** @param {RoundCtrl} ctrl */
  draw(ctrl) {
    const events = ctrl.feed.events;
    const key = `${events.length}:${events[events.length - 1]?.v}:${ctrl.name(0)}:${ctrl.name(1)}:${ctrl.anew}`;
    if (key === this.key) return;
    this.key = key;
    const rows = moveRows(events, (/** @type {number} */ seat) => ctrl.name(seat), ctrl.anew);
    // from a live board the replay opens in a new tab: the match goes on here
    const live = ctrl.isPlayer && ctrl.isLive();
    renderMoveList(this.el, rows, { href: (/** @type {number} */ v) => `#/replay/${ctrl.id}/${v}${ctrl.query}`, target: live ? "_blank" : null });
    this.el.scrollTop = this.el.scrollHeight; // the latest in view
  }
}

/** The chat (for the players): the lines, and a line to send. A line sent stays in the input
 *  until the server sends it back to everyone: a refused one (the chat rate limit, say) is
 *  still there to send again. */
export class ChatView {
  /** @param {RoundCtrl} ctrl */
  constructor(ctrl) {
    this.ctrl = ctrl;
    this.lines = h("div", { class: "chat-lines", "aria-live": "polite" });
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "text", maxlength: 300, "aria-label": t("match.chat_message"), placeholder: t("match.chat_placeholder") }));
    this.input = input;
    const form = h("form", { class: "chat-form", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); ctrl.chat(input.value); } },
      input, h("button", { type: "submit" }, t("match.send")));
    this.el = h("section", { class: "card" }, h("h2", {}, t("match.chat")), this.lines, form);
  }

  /** Every line held (a whole state came). */
  reset() {
    this.lines.replaceChildren();
    for (const m of this.ctrl.feed.chat) this.add(m, false);
  }

  /** A line from the server; one's own pending line, delivered, leaves the input (unless the
   *  player typed on). @param {{seat?: number, from: string, text: string}} m */
  add(m, scroll = true) {
    const ctrl = this.ctrl;
    const pending = ctrl.chatPending;
    if (pending && m.seat === ctrl.you && m.text === pending.text) {
      ctrl.chatPending = null;
      if (this.input.value.trim() === pending.text) this.input.value = "";
    }
    this.lines.append(h("div", {}, h("strong", {}, `${m.from}: `), m.text));
    if (scroll) this.lines.scrollTop = this.lines.scrollHeight;
  }

  /** @param {RoundCtrl} ctrl */
  draw(ctrl) {
    this.el.hidden = !ctrl.isPlayer;
  }
}
