// @ts-check
// round/view/dialogs.js — the match's dialogs: answering a cube or a resignation offered
// (opened when the state asks for one: the controller's `dialogWanted`), offering to resign,
// abandoning, a rematch offered, and the match's end (view/over.js). Each answer is a
// controller action.

import { t } from "../../i18n.js";
import { ask, h } from "../../ui.js";
import { OverView } from "./over.js";

/** @typedef {import("../ctrl.js").RoundCtrl} RoundCtrl */
/** @typedef {{label: string, value: string, class?: string}} DialogButton */

const LEVEL_KEYS = /** @type {Record<number, string>} */ ({ 1: "resign.single", 2: "resign.gammon", 3: "resign.backgammon" });

export class Dialogs {
  /** @param {RoundCtrl} ctrl @param {{refreshMe: () => void}} app */
  constructor(ctrl, app) {
    this.ctrl = ctrl;
    this.app = app;
    /** @type {string | null} the dialog the state asked for, open now */
    this.key = null;
    /** @type {HTMLDialogElement | null} */
    this.dialog = null;
    this.overShown = false;
    /** @type {OverView | null} the match-end dialog's parts, while it is open */
    this.over = null;
  }

  close() {
    if (this.dialog?.open) this.dialog.close();
    this.dialog = null;
    this.key = null;
  }

  /** Open the dialog the state asks for (none while frames play); an offer's dialog goes
   *  once the offer is answered. */
  sync() {
    const ctrl = this.ctrl;
    if (ctrl.animating) return;
    const key = ctrl.dialogWanted();
    if (key === this.key) return;
    if (this.key && this.key !== "over") this.close();
    if (!key || (key === "over" && this.overShown)) return;
    this.key = key;
    if (key.startsWith("cube:")) this.cube();
    else if (key.startsWith("resign:")) this.answerResign();
    else this.openOver();
  }

  /** A modal dialog: `onAnswer` gets the value of the button pressed (null: closed).
   *  @param {string} title @param {(Node | string)[]} body @param {DialogButton[]} buttons
   *  @param {(answer: string | null) => void} onAnswer */
  modal(title, body, buttons, onAnswer) {
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { "aria-labelledby": "dlg-title" }));
    const actions = h("div", { class: "actions" });
    for (const b of buttons) {
      actions.append(h("button", { type: "button", class: b.class || "", "data-value": b.value, onclick: () => dialog.close(b.value) }, b.label));
    }
    dialog.append(h("h2", { id: "dlg-title" }, title), ...body, actions);
    dialog.addEventListener("close", () => {
      const value = dialog.returnValue;
      dialog.remove();
      if (this.dialog === dialog) this.dialog = null;
      onAnswer(value || null);
    });
    document.body.append(dialog);
    this.dialog = dialog;
    dialog.showModal();
    /** @type {HTMLElement | null} */ (actions.querySelector(".primary") || actions.querySelector("button"))?.focus();
    return dialog;
  }

  cube() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const value = g.cube.value * 2;
    const buttons = [{ label: t("cube.drop"), value: "drop" }, { label: t("cube.take"), value: "take", class: "primary" }];
    if (g.can_beaver) buttons.splice(1, 0, { label: t("cube.beaver"), value: "beaver" });
    const body = [h("p", {}, t("cube.explain", { name: ctrl.name(g.turn), value, lose: g.cube.value }))];
    this.modal(t("cube.offered", { value }), body, buttons, (answer) => {
      if (answer === "take" || answer === "drop" || answer === "beaver") ctrl.answer(answer);
      else this.key = null; // asked again on the next state
    });
  }

  answerResign() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const offer = g.resign_offer || { level: 1, player: g.turn };
    const points = offer.level * g.cube.value;
    const body = [h("p", {}, t("resign.explain_offer", { name: ctrl.name(offer.player), level: t(LEVEL_KEYS[offer.level]), count: points }))];
    this.modal(t("resign.offered_title"), body, [
      { label: t("resign.reject"), value: "reject_resign" },
      { label: t("resign.accept"), value: "accept_resign", class: "primary" },
    ], (answer) => {
      if (answer === "reject_resign" || answer === "accept_resign") ctrl.answer(answer);
      else this.key = null;
    });
  }

  /** Offer to resign: a single game, a gammon or a backgammon (above the highest refused). */
  resign() {
    const ctrl = this.ctrl;
    if (!ctrl.canResign()) return;
    const cube = ctrl.game.cube.value;
    const levels = h("div", { class: "levels", role: "radiogroup", "aria-label": t("resign.choose") });
    let first = true;
    for (const level of [1, 2, 3]) {
      const disabled = level <= ctrl.resignFloor;
      const input = h("input", { type: "radio", name: "level", value: level, disabled, checked: !disabled && first });
      if (!disabled) first = false;
      levels.append(h("label", {}, input, h("span", {}, `${t(LEVEL_KEYS[level])} — ${t("resign.points", { count: level * cube })}`)));
    }
    const body = [h("p", {}, t("resign.explain")), levels, h("p", { class: "muted small" }, t("resign.escalation"))];
    const dialog = this.modal(t("resign.title"), body, [
      { label: t("common.cancel"), value: "" },
      { label: t("resign.offer"), value: "offer", class: "primary" },
    ], (answer) => {
      if (answer !== "offer") return;
      const chosen = /** @type {HTMLInputElement | null} */ (dialog.querySelector("input[name=level]:checked"));
      if (chosen) ctrl.resign(Number(chosen.value));
    });
  }

  abandon() {
    const ctrl = this.ctrl;
    if (!ctrl.isPlayer || !ctrl.isLive()) return;
    this.modal(t("abandon.title"), [h("p", { class: "warning" }, t("abandon.warning"))], [
      { label: t("common.cancel"), value: "", class: "primary" },
      { label: t("abandon.confirm"), value: "abandon", class: "danger" },
    ], (answer) => {
      if (answer === "abandon") ctrl.abandon();
    });
  }

  /** The other player offers a rematch. @param {{by: string, new: string}} m @param {string | undefined} me */
  rematchOffered(m, me) {
    if (m.by === me) return;
    ask({
      title: t("match.rematch_offered", { name: m.by }),
      buttons: [{ label: t("match.decline"), value: "no" }, { label: t("match.join_rematch"), value: "yes", class: "primary" }],
    }).then((answer) => {
      if (answer === "yes") this.ctrl.joinRematch(m.new);
    });
  }

  /** The dialog at the end of a match (view/over.js); its parts fill in as the facts arrive. */
  openOver() {
    const ctrl = this.ctrl;
    this.overShown = true;
    const over = new OverView(ctrl);
    /** @type {DialogButton[]} */
    const buttons = [{ label: t("over.lobby"), value: "lobby" }, { label: t("over.replay"), value: "replay" }];
    if (ctrl.isPlayer) buttons.push({ label: t("over.rematch"), value: "rematch", class: "primary" });
    else buttons.push({ label: t("common.close"), value: "close", class: "primary" });
    const dialog = this.modal("", over.body, buttons, (answer) => {
      this.over = null;
      ctrl.end.stop();
      if (answer === "lobby") ctrl.fx.navigate("#/");
      else if (answer === "replay") ctrl.fx.navigate(`#/replay/${ctrl.id}${ctrl.query}`);
      else if (answer === "rematch") ctrl.rematch();
    });
    dialog.classList.add("over-dialog");
    over.title = /** @type {HTMLElement} */ (dialog.querySelector("h2"));
    this.over = over;
    over.fill();
    ctrl.end.start();
    this.app.refreshMe();
  }
}
