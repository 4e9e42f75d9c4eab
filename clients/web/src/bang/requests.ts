// The pending BANG! request as the question it puts (rulebook wording): "X shot you with BANG!: play a
// Missed! or take the hit", "choose a card of the General Store", and so on. The answers are the legal
// actions (actions.ts words them); a request for another seat is shown as what the table waits for.
// Armed & Dangerous adds its questions: upgrades, cubes to pay or place, a Dangerous weapon's effect,
// Tumbleweed's draw! again, Ms. Abigail's and Al Preacher's abilities, passing the Bomb and Buntline's discard.

import { BangRequestKind } from "@tabletop/client/browser";
import type { BangRequest, BangView } from "@tabletop/client/browser";
import type { Context } from "../actions.js";
import { h } from "../dom.js";
import { cardMark, cardTitle, upgradeCost, upgradeText } from "../names.js";
import { cardChip } from "./cards.js";

/** The open request on top of the stack, or null when none is open. */
export function question(view: BangView, ctx: Context): HTMLElement | null {
  const request = view.pending.at(-1);
  if (request === undefined) {
    return null;
  }
  const mine = request.seat === view.viewerSeat;
  const who = ctx.names[request.seat] ?? `seat ${request.seat}`;
  const text = words(request, ctx, mine, who);
  return h("section", { class: mine ? "question mine" : "question", "data-testid": "question",
    "data-kind": BangRequestKind[request.kind] ?? "", "data-seat": request.seat },
  h("h3", {}, mine ? text : `Waiting for ${who}: ${text}`),
  request.cards.length > 0 ? h("div", { class: "cards" }, ...request.cards.map((c) => cardChip(c, ctx.catalog))) : null,
  request.hiddenCardCount > 0 ? h("p", {}, `${request.hiddenCardCount} card(s) face down`) : null);
}

// Helpers

function words(request: BangRequest, ctx: Context, mine: boolean, who: string): string {
  const from = request.sourceSeat === undefined ? "someone" : ctx.names[request.sourceSeat] ?? `seat ${request.sourceSeat}`;
  const card = request.sourceCard === undefined ? "a card" : cardTitle(ctx.catalog, request.sourceCard.name);
  const opponent = request.opponentSeat === undefined ? "someone" : ctx.names[request.opponentSeat] ?? "";
  const you = mine ? "you" : who;
  const does = mine ? "do you" : `does ${who}`;
  const your = mine ? "your" : "their";
  const cubes = (n: number): string => `${n} cube${n === 1 ? "" : "s"}`;
  switch (request.kind) {
    case BangRequestKind.BANG: {
      const left = Math.max(request.missedNeeded - request.missedPlayed, 1);
      return `${from} shot ${you} with ${card}: play ${left} Missed! (or draw! for a Barrel), or take the hit?`;
    }
    case BangRequestKind.INDIANS:
      return `${request.sourceCard === undefined ? "Indians!" : card} from ${from}: ${does} discard a BANG! or lose a life?`;
    case BangRequestKind.DUEL:
      return `Duel with ${from}: ${does} discard a BANG! or lose the duel?`;
    case BangRequestKind.DYING:
      return `${mine ? "You are" : `${who} is`} dying: drink a Beer, or give up?`;
    case BangRequestKind.STORE:
      return `General Store: which card ${does} take?`;
    case BangRequestKind.DISCARD:
      return `Too many cards: ${you} must discard down to ${mine ? "your" : "their"} life.`;
    case BangRequestKind.DRAW:
      return `Phase 1: where ${does} draw the first card from?`;
    case BangRequestKind.KIT_CARLSON:
      return `Kit Carlson: which card ${does} put back on the deck?`;
    case BangRequestKind.PICK:
      return `Lucky Duke: which draw! card counts?`;
    case BangRequestKind.COST:
      return `${card} costs more: ${you} must discard ${request.cardsToDiscard} more card(s).`;
    case BangRequestKind.VICTIM_CARD:
      return `${card}: which card of ${opponent} ${does} take?`;
    case BangRequestKind.COPY_CHARACTER:
      return `Vera Custer: whose ability ${does} copy until the next turn?`;
    case BangRequestKind.UPGRADE: {
      const key = request.sourceCard?.name ?? "";
      const extra = request.extraTargets.map((s) => ctx.names[s] ?? `seat ${s}`);
      const bought = request.upgradesBought === 0 ? ""
        : ` (upgraded ${request.upgradesBought}×${extra.length > 0 ? `, also at ${extra.join(", ")}` : ""})`;
      const rule = upgradeText(ctx.catalog, key);
      return `${card}${bought}: ${does} pay ${cubes(upgradeCost(ctx.catalog, key))} for ${request.upgradesBought === 0 ? "its" : "another"} upgrade?${rule ? ` ${rule}` : ""}`;
    }
    case BangRequestKind.PAY_CUBES:
      return `${mine ? "You" : who} must pay ${request.cubesToPay} more cube${request.cubesToPay === 1 ? "" : "s"}: from ${your} character or which Dangerous card?`;
    case BangRequestKind.PLACE_CUBES:
      return `${cubes(request.cubesToPlace)} from the supply: on which of ${your} cube holders (character or Dangerous card, at most 4 each)?`;
    case BangRequestKind.WEAPON:
      return `${mine ? "Your" : `${who}'s`} ${card}: ${does} pay 1 of its cubes for its effect on this BANG!?`;
    case BangRequestKind.REDRAW: {
      const drawer = request.opponentSeat !== undefined && request.opponentSeat === ctx.seat ? "you" : opponent;
      const flipped = request.cards.map((c) => `${cardTitle(ctx.catalog, c.name)} ${cardMark(c)}`).join(", ") || "a card";
      return `${drawer === "you" ? "You" : drawer} drew! ${flipped}: ${does} pay 1 cube of ${your} ${card} to make ${drawer} draw! again?`;
    }
    case BangRequestKind.IGNORE:
      return `${from}'s ${card} has ${you} as its only target: ${does} ignore it (Ms. Abigail)?`;
    case BangRequestKind.DRAW_FOR_CUBES:
      return `${from} put ${card} in play: ${does} pay 2 cubes to draw a card (Al Preacher)?`;
    case BangRequestKind.PASS_BOMB:
      return `The Bomb's draw! was red: to which player ${does} pass it, with its cubes?`;
    case BangRequestKind.DISCARD_ONE:
      return `${from}'s Buntline Special shot was cancelled: ${you} must discard a card of ${your} choice.`;
    default:
      return `${you} must decide.`;
  }
}
