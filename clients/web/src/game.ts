// The game page: one game, seen as this tab's seat (or as a spectator). It loads the view and the seat's
// legal actions, keeps a WatchGame stream open and reloads both at every version it announces, so every
// tab follows the game live. The board is the ruleset's renderer (ttr/, bang/); the actions are exactly
// what ListLegalActions offers, sent back unchanged with the version they were listed at.

import type { Action, Event as GameEvent, GetGameResponse, GetRulesetResponse, TabletopClient } from "@tabletop/client/browser";
import { GameStatus } from "@tabletop/client/browser";
import { actionPanel } from "./actions.js";
import type { Context } from "./actions.js";
import { anonymous, catalog, errorText, loadCredential, saveCredential, seatClient } from "./api.js";
import type { Credential } from "./api.js";
import { drawBang } from "./bang/table.js";
import { h } from "./dom.js";
import { describeEvent } from "./events.js";
import { dealMark, verifyDeal } from "./fairplay.js";
import { seatNames } from "./names.js";
import { drawTtr } from "./ttr/panel.js";

/** A page that can be left: the router stops it before drawing another. */
export interface Page {
  stop(): void;
}

/** Open game `name` (games/<id>) in `root`. */
export function openGame(root: HTMLElement, name: string): Page {
  const page = new GamePage(root, name);
  void page.start();
  return page;
}

class GamePage implements Page {
  private credential: Credential | undefined;
  private client: TabletopClient = anonymous;
  private reply: GetGameResponse | undefined;
  private actions: Action[] = [];
  private listedAt = 0n;
  private catalog: GetRulesetResponse | undefined;
  private watch = new AbortController();
  private feed: string[] = [];
  private message = "";
  private busy = false;
  private loads = 0;

  constructor(private readonly root: HTMLElement, private readonly name: string) {}

  async start(): Promise<void> {
    this.useCredential(loadCredential(this.name));
    try {
      await this.load();
    } catch (err) {
      this.root.replaceChildren(h("p", { class: "error", "data-testid": "error" }, errorText(err)));
      return;
    }
    void this.follow();
  }

  stop(): void {
    this.watch.abort();
  }

  // Loading and watching

  private useCredential(credential: Credential | undefined): void {
    this.credential = credential;
    this.client = credential === undefined ? anonymous : seatClient(credential.token);
  }

  /** GetGame and ListLegalActions; a load overtaken by a later one is dropped. */
  private async load(): Promise<void> {
    const ticket = ++this.loads;
    const client = this.client;
    const [reply, legal] = await Promise.all([
      client.getGame({ name: this.name }),
      this.credential === undefined ? undefined : client.listLegalActions({ name: this.name }).catch(() => undefined),
    ]);
    if (ticket !== this.loads) {
      return;
    }
    this.catalog ??= await catalog(reply.game?.ruleset ?? "");
    this.reply = reply;
    this.actions = legal?.actions ?? [];
    this.listedAt = legal?.version ?? reply.game?.version ?? 0n;
    this.render();
  }

  /** WatchGame until the page is left: every message is a new version (reconnects after a second). */
  private async follow(): Promise<void> {
    const signal = this.watch.signal;
    while (!signal.aborted) {
      const from = this.reply?.game?.version ?? 0n;
      try {
        for await (const message of this.client.watchGame({ name: this.name, fromVersion: from },
          { signal, timeoutMs: 0 })) {
          this.note(message.events);
          await this.load();
        }
      } catch {
        // The stream ended (server restart, network): resume from the last version seen.
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  private note(events: GameEvent[]): void {
    const ctx = this.context();
    for (const event of events) {
      const text = ctx === undefined ? "" : describeEvent(event, ctx);
      if (text !== "") {
        this.feed.unshift(`v${event.version}: ${text}`);
      }
    }
    this.feed.length = Math.min(this.feed.length, 12);
  }

  // Acting

  private async act(action: Action): Promise<void> {
    if (this.busy) {
      return;
    }
    this.busy = true;
    this.message = "";
    this.render();
    try {
      await this.client.submitAction({ name: this.name, action, expectedVersion: this.listedAt,
        requestId: crypto.randomUUID() });
    } catch (err) {
      this.message = errorText(err);
    }
    this.busy = false;
    await this.load();
  }

  private async join(displayName: string): Promise<void> {
    try {
      const joined = await anonymous.joinGame({ name: this.name, displayName });
      const own = joined.credential;
      if (own !== undefined) {
        saveCredential(this.name, { seat: own.seat, token: own.playerToken });
        this.useCredential({ seat: own.seat, token: own.playerToken });
        this.watch.abort();
        this.watch = new AbortController();
        void this.follow();
      }
      this.message = "";
    } catch (err) {
      this.message = errorText(err);
    }
    await this.load();
  }

  // Drawing

  private context(): Context | undefined {
    const game = this.reply?.game;
    if (game === undefined || this.catalog === undefined) {
      return undefined;
    }
    const names = seatNames(game.seats);
    return { catalog: this.catalog, view: this.reply?.view, names, seat: this.credential?.seat };
  }

  private render(): void {
    const game = this.reply?.game;
    const ctx = this.context();
    if (game === undefined || ctx === undefined) {
      return;
    }
    const board = ctx.catalog.catalog.case === "ttrEurope" ? drawTtr(ctx) : drawBang(ctx);
    this.root.replaceChildren(
      this.header(),
      h("p", { class: "error", "data-testid": "message" }, this.message),
      h("div", { class: "play" }, board,
        h("aside", {}, actionPanel(this.actions, ctx, this.busy, (action) => void this.act(action)),
          h("section", { class: "feed", "data-testid": "feed" }, h("h3", {}, "Live"),
            h("ul", {}, ...this.feed.map((line) => h("li", {}, line)))))));
    this.root.dataset["version"] = String(game.version);
    this.root.dataset["status"] = GameStatus[game.status];
  }

  private header(): HTMLElement {
    const game = this.reply?.game;
    const link = `${location.origin}/#/games/${this.name.replace(/^games\//, "")}`;
    const seat = this.credential?.seat;
    const names = seatNames(game?.seats ?? []);
    const open = game?.status === GameStatus.WAITING && game.seats.some((s) => !s.occupied);
    let who: HTMLElement;
    if (seat !== undefined) {
      who = h("span", { "data-testid": "seat", "data-seat": seat }, `You are seat ${seat} (${names[seat] ?? ""})`);
    } else if (open) {
      const input = h("input", { "data-testid": "join-name", placeholder: "your name", maxlength: 64 });
      who = h("form", { class: "join", onsubmit: (e) => { e.preventDefault(); void this.join(input.value.trim()); } },
        input, h("button", { type: "submit", "data-testid": "join" }, "Join"), " or just watch");
    } else {
      who = h("span", { "data-testid": "spectator" }, "Spectating");
    }
    return h("header", { class: "game-header" },
      h("h1", {}, this.catalog?.ruleset?.displayName ?? game?.ruleset ?? ""),
      h("span", { class: "status" }, `${(GameStatus[game?.status ?? 0] ?? "").toLowerCase()} · version ${game?.version ?? 0}`),
      ...(game ? [...dealMark(game), ...verifyDeal(game)] : []),
      h("label", {}, "Join link ", h("input", { readonly: true, value: link, "data-testid": "share-link", size: 40 })),
      h("span", { class: "seats" }, ...(game?.seats ?? []).map((s) =>
        h("span", { class: `seat-chip p${s.index}`, "data-testid": "seat-chip" },
          s.occupied ? names[s.index] ?? "" : `seat ${s.index} open`))),
      who);
  }
}
