// @ts-check
// pages/replay.js — the replay page (#/replay/ID[/V]): a match stepped through from its
// events (replay.js's frames on stepper.js's FrameStepper), its move list, its downloads.
// The page draws its controller (pages/replay/ctrl.js: the match, its frames and move
// list, the frame shown, no DOM) and turns the buttons and the move list into its actions.

import { t } from "../i18n.js";
import { renderMoveList } from "../movelist.js";
import { api } from "../net.js";
import { Page } from "./page.js";
import { ReplayCtrl } from "./replay/ctrl.js";
import { FrameStepper } from "../stepper.js";
import { downloadLink, h, kindText } from "../ui.js";

export class ReplayPage extends Page {
  /** @param {any} app @param {string} arg the route's (ReplayCtrl's) */
  constructor(app, arg) {
    super(app);
    this.ctrl = new ReplayCtrl(arg, {
      api, events: () => this.feed?.events ?? [], options: () => this.app.options,
      saveOptions: (patch) => this.app.saveOptions(patch),
      remember: (hash) => history.replaceState(null, "", hash),
      changed: (part) => (part === "frames" ? this.showFrames() : part === "frame" ? this.showFrame() : this.showError()),
    });
    /** @type {FrameStepper} the board that steps through the frames (when mounted) */
    this.stepper;
    /** @type {(event: KeyboardEvent) => void} */
    this.keys;
  }

  mount(main) {
    const ctrl = this.ctrl;
    const links = ctrl.links;
    const btn = (label, fn, act) => h("button", { type: "button", title: label, "aria-label": label, "data-act": act, onclick: fn }, label);
    this.title = h("h1", {}, t("replay.title"));
    this.moveList = h("div", { class: "movelist", role: "list", "aria-label": t("match.log"), tabindex: 0 });
    const stepper = new FrameStepper({ options: () => this.app.options, moveList: this.moveList, onShow: (_f, i) => ctrl.shown(i) });
    this.stepper = stepper;
    main.replaceChildren(this.title,
      h("div", { class: "replay" },
        h("div", { class: "replay-main" },
          ...stepper.elements,
          h("div", { class: "row", style: "justify-content:center" },
            btn(t("match.flip"), () => ctrl.flip(), "flip"),
            btn(t("match.switch_side"), () => ctrl.switchSide(), "side"),
            downloadLink(links.mat, `${ctrl.id}.mat`, t("history.download")),
            downloadLink(links.sgf, `${ctrl.id}.sgf`, t("history.download_sgf")),
            h("a", { class: "button", href: links.live }, t("replay.live")),
            this.reviewLink = h("a", { class: "button", href: links.review, "data-act": "review", hidden: true }, t("history.review")),
            h("a", { class: "button", href: links.fairness }, t("history.check_dice")))),
        h("section", { class: "card replay-side" }, h("h2", {}, t("match.log")), this.moveList)));
    this.keys = stepper.keys();
    document.addEventListener("keydown", this.keys);
    // the match's events: subscribing from version 0 sends them all
    this.feed = this.app.socket.feed(ctrl.id, 0, ctrl.key);
    this.onState = () => ctrl.load();
    this.feed.addEventListener("state", this.onState);
    ctrl.start();
  }

  unmount() {
    document.removeEventListener("keydown", this.keys);
    this.feed?.removeEventListener("state", this.onState);
    this.app.socket.drop(this.ctrl.id);
  }

  /** The match as read: the title, the review's link, the frames, the move list, the frame. */
  showFrames() {
    const ctrl = this.ctrl;
    const info = /** @type {import("../wire.js").InfoView} */ (ctrl.info);
    this.title.textContent = `${ctrl.players} · ${kindText(info)}`;
    this.reviewLink.hidden = !ctrl.reviewable;
    this.stepper.setFrames(ctrl.frames, info);
    renderMoveList(this.moveList, ctrl.rows, { href: (v) => ctrl.moveHref(v), onPick: (v) => ctrl.jump(v) });
    if (!ctrl.frames.length) { this.stepper.caption.textContent = t("replay.empty"); return; }
    this.showFrame();
  }

  /** The frame the controller shows, from the side it has at the bottom. */
  showFrame() {
    this.stepper.bottom = this.ctrl.bottom;
    this.stepper.show(this.ctrl.index);
  }

  showError() {
    this.stepper.caption.textContent = this.ctrl.error;
  }
}
