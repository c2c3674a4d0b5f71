// @ts-check
// pages/replay.js — the replay page (#/replay/ID[/V]): a match stepped through from its
// events (replay.js's frames on stepper.js's FrameStepper), its move list, its downloads.

import { t } from "../i18n.js";
import { moveRows, renderMoveList } from "../movelist.js";
import { api } from "../net.js";
import { Page } from "./page.js";
import { frameAt, matchFrames } from "../replay.js";
import { FrameStepper } from "../stepper.js";
import { downloadLink, h, kindText } from "../ui.js";

export class ReplayPage extends Page {
  /** `arg`: ID, ID/V (at the move of event version V), either with ?key=KEY (a private
   *  match's invite key). */
  constructor(app, arg) {
    super(app);
    const [path, key] = arg.split("?key=");
    const [id, at] = path.split("/");
    this.id = id;
    this.key = key || null;
    this.query = this.key ? `?key=${encodeURIComponent(this.key)}` : "";
    this.at = at !== undefined && /^\d+$/.test(at) ? Number(at) : null;
    /** @type {import("../wire.js").InfoView} the match's info, read before anything is drawn */
    this.info;
    /** @type {FrameStepper} the board that steps through the frames (when mounted) */
    this.stepper;
    /** @type {(event: KeyboardEvent) => void} */
    this.keys;
  }

  mount(main) {
    const btn = (label, fn, act) => h("button", { type: "button", title: label, "aria-label": label, "data-act": act, onclick: fn }, label);
    this.title = h("h1", {}, t("replay.title"));
    this.moveList = h("div", { class: "movelist", role: "list", "aria-label": t("match.log"), tabindex: 0 });
    const stepper = new FrameStepper({ options: () => this.app.options, moveList: this.moveList });
    this.stepper = stepper;
    main.replaceChildren(this.title,
      h("div", { class: "replay" },
        h("div", { class: "replay-main" },
          ...stepper.elements,
          h("div", { class: "row", style: "justify-content:center" },
            btn(t("match.flip"), () => { this.app.saveOptions({ flip: !this.app.options.flip }); this.show(stepper.index); }, "flip"),
            btn(t("match.switch_side"), () => { stepper.bottom = 1 - stepper.bottom; this.show(stepper.index); }, "side"),
            downloadLink(`/api/games/${this.id}/export.mat${this.query}`, `${this.id}.mat`, t("history.download")),
            downloadLink(`/api/games/${this.id}/export.sgf${this.query}`, `${this.id}.sgf`, t("history.download_sgf")),
            h("a", { class: "button", href: `#/match/${this.id}${this.query}` }, t("replay.live")),
            this.reviewLink = h("a", { class: "button", href: `#/review/${this.id}${this.query}`, "data-act": "review", hidden: true }, t("history.review")),
            h("a", { class: "button", href: `#/fairness/${this.id}` }, t("history.check_dice")))),
        h("section", { class: "card replay-side" }, h("h2", {}, t("match.log")), this.moveList)));
    this.keys = stepper.keys();
    document.addEventListener("keydown", this.keys);
    // the match's events: subscribing from version 0 sends them all
    this.feed = this.app.socket.feed(this.id, 0, this.key);
    this.onState = () => this.load();
    this.feed.addEventListener("state", this.onState);
    api("GET", `/api/games/${this.id}${this.query}`).then((state) => { this.info = state.info; this.load(); }).catch((err) => {
      stepper.caption.textContent = err.status === 404 ? t("replay.not_found") : err.message;
    });
  }

  unmount() {
    document.removeEventListener("keydown", this.keys);
    this.feed?.removeEventListener("state", this.onState);
    this.app.socket.drop(this.id);
  }

  load() {
    if (!this.info) return;
    const info = this.info;
    this.title.textContent = `${info.seats.map((s) => s?.name ?? "…").join(" – ")} · ${kindText(info)}`;
    this.reviewLink.hidden = info.status !== "finished";
    const name = (seat) => info.seats[seat]?.name ?? "?";
    const anew = info.winner_rolls_anew ?? null;
    const events = this.feed.events;
    const stepper = this.stepper;
    const atEnd = !stepper.frames.length || stepper.index >= stepper.frames.length - 1;
    stepper.setFrames(matchFrames(events, info), info);
    renderMoveList(this.moveList, moveRows(events, name, anew), {
      href: (v) => `#/replay/${this.id}/${v}${this.query}`,
      onPick: (v) => this.jump(v),
    });
    if (!stepper.frames.length) { stepper.caption.textContent = t("replay.empty"); return; }
    if (this.at !== null && !this.loadedOnce) this.jump(this.at, false);
    else this.show(atEnd && this.loadedOnce ? stepper.frames.length - 1 : stepper.index);
    this.loadedOnce = true;
  }

  /** Show the position after the event of version `v` (a move clicked in the list). */
  jump(v, remember = true) {
    this.show(frameAt(this.stepper.frames, v));
    if (remember) history.replaceState(null, "", `#/replay/${this.id}/${v}${this.query}`);
  }

  show(i) {
    this.stepper.show(i);
  }
}
