// The actions panel: every action ListLegalActions offered, as one button each, grouped by kind and
// worded from the catalog and the view. A click sends that very message back (SubmitAction), so the page
// can play every action the rules allow without knowing the rules.

import { BangDrawSource, BangRequestKind } from "@tabletop/client/browser";
import type { Action, BangAction, BangView, GetRulesetResponse, TtrEuropeAction, TtrEuropeView, View } from "@tabletop/client/browser";
import { h } from "./dom.js";
import { cardName, characterName, colorName, paymentText, routeText, ticketText } from "./names.js";

/** What a renderer needs: the catalog, the caller's view, seat names, and the caller's seat if any. */
export interface Context {
  catalog: GetRulesetResponse;
  view: View | undefined;
  names: string[];
  seat: number | undefined;
}

/** The panel of `actions`; `pick` is called with the chosen one. */
export function actionPanel(actions: Action[], ctx: Context, busy: boolean, pick: (action: Action) => void): HTMLElement {
  const groups = new Map<string, HTMLElement[]>();
  actions.forEach((action, index) => {
    const kind = action.game.value?.kind.case ?? "action";
    const button = h("button", { type: "button", "data-testid": "action", "data-kind": kind, "data-index": index,
      disabled: busy, onclick: () => pick(action) }, describe(action, ctx));
    groups.set(kind, [...(groups.get(kind) ?? []), button]);
  });
  const title = ctx.seat === undefined ? "Spectating: no actions" : actions.length === 0 ? "Waiting for the others" : "Your move";
  return h("section", { class: "actions", "data-testid": "actions", "data-count": actions.length }, h("h3", {}, title),
    ...[...groups].map(([kind, buttons]) => {
      const group = h("details", { open: openGroups.get(kind) ?? buttons.length <= 12, "data-group": kind },
        h("summary", {}, `${label(kind)} (${buttons.length})`), h("div", { class: "buttons" }, ...buttons));
      group.addEventListener("toggle", () => openGroups.set(kind, group.open));
      return group;
    }));
}

/** Groups the player opened or closed stay so when the page is redrawn at the next version. */
const openGroups = new Map<string, boolean>();

/** One action in words. */
export function describe(action: Action, ctx: Context): string {
  if (action.game.case === "ttrEurope") {
    return describeTtr(action.game.value, ctx);
  }
  if (action.game.case === "bang") {
    return describeBang(action.game.value, ctx);
  }
  return "unknown action";
}

// Helpers

function describeTtr(action: TtrEuropeAction, ctx: Context): string {
  const view = ctx.view?.game.case === "ttrEurope" ? ctx.view.game.value : undefined;
  const kind = action.kind;
  switch (kind.case) {
    case "drawTrainCard":
      return kind.value.faceUpSlot === undefined ? "Draw a card from the deck"
        : `Take the face-up ${colorName(view?.faceUp[kind.value.faceUpSlot] ?? 0)}`;
    case "claimRoute":
      return `Claim ${routeText(ctx.catalog, kind.value.routeId)} with ${paymentText(kind.value.payment)}`;
    case "buildStation":
      return `Build a station in ${kind.value.city} with ${paymentText(kind.value.payment)}`;
    case "drawTickets":
      return "Draw destination tickets";
    case "keepTickets":
      return `Keep ${kind.value.ticketIds.map((id) => offered(view, ctx, id)).join("; ")}`;
    case "payTunnel":
      return `Pay the tunnel's extra cost with ${paymentText(kind.value.payment)}`;
    case "withdrawTunnel":
      return "Give up the tunnel";
    case "passTurn":
      return "Pass (nothing else is possible)";
    default:
      return "unknown action";
  }
}

function offered(view: TtrEuropeView | undefined, ctx: Context, id: number): string {
  const ticket = view?.private?.offeredTickets.find((t) => t.id === id);
  return ticket === undefined ? `ticket ${id}` : ticketText(ctx.catalog, ticket);
}

function describeBang(action: BangAction, ctx: Context): string {
  const view = ctx.view?.game.case === "bang" ? ctx.view.game.value : undefined;
  const at = (seat: number | undefined): string => (seat === undefined ? "" : ` at ${ctx.names[seat] ?? `seat ${seat}`}`);
  const pick = (value: string): string => (value === "" ? "" : `, taking ${pickText(view, ctx, value)}`);
  const kind = action.kind;
  switch (kind.case) {
    case "play":
      return `Play ${cardName(ctx.catalog, view, kind.value.card)}${at(kind.value.targetSeat)}${pick(kind.value.pick)}`;
    case "use":
      return `Use ${cardName(ctx.catalog, view, kind.value.card)} in play${at(kind.value.targetSeat)}${pick(kind.value.pick)}`;
    case "respond":
      return `Answer with ${cardName(ctx.catalog, view, kind.value.card)}`;
    case "barrel":
      return `Draw! for your ${cardName(ctx.catalog, view, kind.value.card)}`;
    case "pass":
      return passText(view);
    case "choose":
      return `Choose ${kind.value.card !== "" ? cardName(ctx.catalog, view, kind.value.card) : pickText(view, ctx, kind.value.pick)}`;
    case "draw":
      return kind.value.source === BangDrawSource.DISCARD ? "Draw the first card from the discard pile"
        : kind.value.source === BangDrawSource.PLAYER ? `Draw the first card from the hand of${at(kind.value.targetSeat).replace(" at", "")}`
          : "Draw from the deck";
    case "discard":
      return `Discard ${cardName(ctx.catalog, view, kind.value.card)}`;
    case "ability":
      return `Use your ability: discard ${kind.value.cards.map((c) => cardName(ctx.catalog, view, c)).join(" and ")}${at(kind.value.targetSeat)}`;
    case "endTurn":
      return "End your turn";
    default:
      return "unknown action";
  }
}

function pickText(view: BangView | undefined, ctx: Context, value: string): string {
  if (value === "hand") {
    return "a random card from the hand";
  }
  const name = cardName(ctx.catalog, view, value);
  return name === value ? characterName(ctx.catalog, value) : name;
}

function passText(view: BangView | undefined): string {
  const request = view?.pending.at(-1);
  switch (request?.kind) {
    case BangRequestKind.BANG:
    case BangRequestKind.INDIANS:
      return "Take the hit";
    case BangRequestKind.DUEL:
      return "Lose the duel";
    case BangRequestKind.DYING:
      return "Give up (no Beer)";
    default:
      return "Pass";
  }
}

function label(kind: string): string {
  return kind.replace(/([A-Z])/g, " $1").replace(/^./, (c) => c.toUpperCase());
}
