// The actions panel: every action ListLegalActions offered, as one button each, grouped by kind and
// worded from the catalog and the view. A click sends that very message back (SubmitAction), so the page
// can play every action the rules allow without knowing the rules. A BANG! answer is worded from the
// request it answers (the top of `pending`): a `choose` pays a cube, places one, passes the Bomb, and so on.

import { BangCardColor, BangDrawSource, BangRequestKind } from "@tabletop/client/browser";
import type { Action, BangAction, BangChoose, BangUseAbility, BangView, GetRulesetResponse, TtrEuropeAction, TtrEuropeView, View } from "@tabletop/client/browser";
import { h } from "./dom.js";
import { cardName, cardTitle, characterName, colorName, cubeCost, paymentText, routeText, ticketText, upgradeCost } from "./names.js";

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
  const at = (seat: number | undefined): string => (seat === undefined ? "" : ` at ${seatName(ctx, seat)}`);
  const pick = (value: string): string => (value === "" ? "" : `, taking ${pickText(view, ctx, value)}`);
  const request = view?.pending.at(-1);
  const kind = action.kind;
  switch (kind.case) {
    case "play":
      return `Play ${cardName(ctx.catalog, view, kind.value.card)}${at(kind.value.targetSeat)}${pick(kind.value.pick)}${loaded(view, ctx, kind.value.card)}`;
    case "use": {
      const card = cardName(ctx.catalog, view, kind.value.card);
      if (request?.kind === BangRequestKind.WEAPON) {
        return `Pay 1 cube of ${card} for its effect on this BANG!`;
      }
      if (request?.kind === BangRequestKind.REDRAW) {
        return `Pay 1 cube of ${card}: ${request.opponentSeat === ctx.seat ? "draw!" : `${seatName(ctx, request.opponentSeat)} draws!`} again`;
      }
      const cost = cubeCost(ctx.catalog, cardKey(view, kind.value.card));
      const paying = cost > 0 ? ` (${cost} of its cubes)` : "";
      return `Use ${card} in play${paying}${at(kind.value.targetSeat)}${pick(kind.value.pick)}`;
    }
    case "respond":
      return `Answer with ${cardName(ctx.catalog, view, kind.value.card)}`;
    case "barrel":
      return `Draw! for your ${cardName(ctx.catalog, view, kind.value.card)}`;
    case "pass":
      return passText(view);
    case "choose":
      return chooseText(kind.value, view, ctx);
    case "draw":
      return kind.value.source === BangDrawSource.DISCARD ? "Draw the first card from the discard pile"
        : kind.value.source === BangDrawSource.PLAYER ? `Draw the first card from the hand of${at(kind.value.targetSeat).replace(" at", "")}`
          : "Draw from the deck";
    case "discard":
      return `Discard ${cardName(ctx.catalog, view, kind.value.card)}`;
    case "ability":
      return abilityText(kind.value, view, ctx);
    case "upgrade": {
      const key = request?.sourceCard?.name ?? "";
      const cost = upgradeCost(ctx.catalog, key);
      const more = (request?.upgradesBought ?? 0) > 0 ? " once more" : "";
      return `Upgrade ${key === "" ? "the card" : cardTitle(ctx.catalog, key)}${more}${kind.value.targetSeat === undefined ? "" : `: also${at(kind.value.targetSeat)}`}` +
        ` (${cost} cube${cost === 1 ? "" : "s"})`;
    }
    case "endTurn":
      return "End your turn";
    default:
      return "unknown action";
  }
}

function seatName(ctx: Context, seat: number | undefined): string {
  return seat === undefined ? "someone" : ctx.names[seat] ?? `seat ${seat}`;
}

/** The card key (name) of a card id the viewer knows (hand or in play), or "". */
function cardKey(view: BangView | undefined, id: string): string {
  const cards = [...(view?.hand ?? []), ...(view?.players ?? []).flatMap((p) => p.inPlay)];
  return cards.find((c) => c.id === id)?.name ?? "";
}

/** Armed & Dangerous: an orange card is played with 3 cubes from the supply. */
function loaded(view: BangView | undefined, ctx: Context, id: string): string {
  const key = cardKey(view, id);
  const row = ctx.catalog.catalog.case === "bang" ? ctx.catalog.catalog.value.cards.find((c) => c.key === key) : undefined;
  return row?.color === BangCardColor.ORANGE ? " (with 3 cubes from the supply)" : "";
}

/** The cubes on one of the viewer's holders ("character" or an orange card in play). */
function cubesOn(view: BangView | undefined, ctx: Context, holder: string): number {
  const me = view?.players.find((p) => p.seat === ctx.seat);
  return holder === "character" ? me?.cubes ?? 0 : me?.cardCubes.find((c) => c.cardId === holder)?.cubes ?? 0;
}

function chooseText(choose: BangChoose, view: BangView | undefined, ctx: Context): string {
  const request = view?.pending.at(-1);
  if (choose.targetSeat !== undefined) {
    return request?.kind === BangRequestKind.PASS_BOMB ? `Pass the Bomb to ${seatName(ctx, choose.targetSeat)}`
      : `Choose ${seatName(ctx, choose.targetSeat)}`;
  }
  if (choose.card !== "") {
    return `Choose ${cardName(ctx.catalog, view, choose.card)}`;
  }
  const holder = choose.pick === "character" ? "your character" : cardName(ctx.catalog, view, choose.pick);
  const has = cubesOn(view, ctx, choose.pick);
  switch (request?.kind) {
    case BangRequestKind.PAY_CUBES:
      return `Pay a cube from ${holder} (${has} on it)`;
    case BangRequestKind.PLACE_CUBES:
      return `Put ${request.cubesToPlace === 1 ? "the cube" : "cubes"} on ${holder} (${has} on it, at most 4)`;
    case BangRequestKind.COPY_CHARACTER:
      return `Copy ${characterName(ctx.catalog, choose.pick)}'s ability`;
    default:
      return `Choose ${pickText(view, ctx, choose.pick)}`;
  }
}

function abilityText(ability: BangUseAbility, view: BangView | undefined, ctx: Context): string {
  const request = view?.pending.at(-1);
  if (request?.kind === BangRequestKind.IGNORE) {
    return `Ignore ${request.sourceCard === undefined ? "the card" : cardTitle(ctx.catalog, request.sourceCard.name)} (Ms. Abigail)`;
  }
  if (request?.kind === BangRequestKind.DRAW_FOR_CUBES) {
    return "Pay 2 cubes and draw a card (Al Preacher)";
  }
  const names = ability.cards.map((c) => cardName(ctx.catalog, view, c));
  const target = ability.targetSeat === undefined ? "" : seatName(ctx, ability.targetSeat);
  const character = view?.players.find((p) => p.seat === ctx.seat)?.character ?? "";
  switch (character) {
    case "bass_greeves":
      return `Discard ${names.join(" and ")}: put 2 cubes from the supply on one of your cube holders (Bass Greeves)`;
    case "frankie_canton":
      return `Take 1 cube from ${names.length > 0 ? names.join(" and ") : `${target}'s character`} onto your character (Frankie Canton)`;
    case "mexicali_kid":
      return `Pay 2 cubes: a BANG! at ${target} (Mexicali Kid)`;
    case "red_ringo":
      return `Move ${names.length === 1 ? "a cube" : "2 cubes"} from your character onto ${[...new Set(names)].join(" and ")} (Red Ringo)`;
    default: {
      // Whatever the character (Vera Custer copies one): cards from the hand are discarded, others named.
      const hand = new Set((view?.hand ?? []).map((c) => c.id));
      const cards = names.length === 0 ? "" : ability.cards.every((c) => hand.has(c)) ? `: discard ${names.join(" and ")}`
        : ` with ${names.join(" and ")}`;
      return `Use your ability${cards}${target === "" ? "" : ` at ${target}`}`;
    }
  }
}

function pickText(view: BangView | undefined, ctx: Context, value: string): string {
  if (value === "hand") {
    return "a random card from the hand";
  }
  if (value === "character") {
    return "your character";
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
    case BangRequestKind.UPGRADE:
      return request.upgradesBought === 0 ? "No upgrade" : "No more upgrades";
    case BangRequestKind.WEAPON:
      return "Shoot without the weapon's effect";
    case BangRequestKind.REDRAW:
      return "Let the draw! stand";
    case BangRequestKind.IGNORE:
      return "Let the card act";
    case BangRequestKind.DRAW_FOR_CUBES:
      return "Keep the cubes (no card)";
    case BangRequestKind.PLACE_CUBES:
      // A recharge cube (AD-009, AD-011): the rulebook says you *may* add 1; declined, it stays in the supply.
      return "Don't add";
    default:
      return "Pass";
  }
}

function label(kind: string): string {
  return kind.replace(/([A-Z])/g, " $1").replace(/^./, (c) => c.toUpperCase());
}
