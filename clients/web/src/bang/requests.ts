// The pending BANG! request as the question it puts (rulebook wording): "X shot you with BANG!: play a
// Missed! or take the hit", "choose a card of the General Store", and so on. The answers are the legal
// actions (actions.ts words them); a request for another seat is shown as what the table waits for.
// Armed & Dangerous adds its questions: upgrades, cubes to pay or place, a Dangerous weapon's effect,
// Tumbleweed's draw! again, Ms. Abigail's and Al Preacher's abilities, passing the Bomb and Buntline's discard.

import { BangRequestKind } from "@tabletop/client/browser";
import type { Action, BangRequest, BangView } from "@tabletop/client/browser";
import { offering } from "../actions.js";
import type { Context } from "../actions.js";
import { h } from "../dom.js";
import { t } from "../i18n/index.js";
import { cardMark, cardTitle, cubesText, nameOf, upgradeCost, upgradeText } from "../names.js";
import { cardChip } from "./cards.js";

/** The open request on top of the stack, or null when none is open. */
export function question(view: BangView, ctx: Context): HTMLElement | null {
  const request = view.pending.at(-1);
  if (request === undefined) {
    return null;
  }
  const mine = request.seat === view.viewerSeat;
  const who = nameOf(ctx.names, request.seat);
  const text = words(request, ctx, mine, who);
  return h("section", { class: mine ? "question mine" : "question", "data-testid": "question",
    "data-kind": BangRequestKind[request.kind] ?? "", "data-seat": request.seat, "aria-live": "polite" },
  h("h3", {}, mine ? text : t("bang.waitingFor", { who, text })),
  request.cards.length > 0 ? h("div", { class: "cards" }, ...request.cards.map((c) => {
    // A card offered to this seat (the General Store, Kit Carlson, a card to pick) is taken by clicking it.
    const chip = cardChip(c, ctx.catalog);
    const name = cardTitle(ctx.catalog, c.name);
    return offering(chip, ctx, t("act.choose", { what: `${name} ${cardMark(c)}` }), t("act.choose", { what: name }), choices(ctx, c.id));
  })) : null,
  request.hiddenCardCount > 0 ? h("p", {}, t("bang.faceDown", { n: request.hiddenCardCount })) : null);
}

// Helpers

/** The seat's legal `choose` actions that take card `id` of the request. */
function choices(ctx: Context, id: string): Action[] {
  return (ctx.actions ?? []).filter((action) => action.game.case === "bang" && action.game.value.kind.case === "choose"
    && action.game.value.kind.value.card === id);
}

function words(request: BangRequest, ctx: Context, mine: boolean, who: string): string {
  const from = nameOf(ctx.names, request.sourceSeat);
  const card = request.sourceCard === undefined ? t("q.aCard") : cardTitle(ctx.catalog, request.sourceCard.name);
  const opponent = nameOf(ctx.names, request.opponentSeat);
  const you = mine ? t("q.you") : who;
  const does = mine ? t("q.doYou") : t("q.does", { who });
  const your = mine ? t("q.your") : t("q.their");
  const cubes = (n: number): string => cubesText(n);
  const common = { from, card, opponent, you, does, your };
  switch (request.kind) {
    case BangRequestKind.BANG:
      return t("q.bang", { ...common, n: Math.max(request.missedNeeded - request.missedPlayed, 1) });
    case BangRequestKind.INDIANS:
      return t("q.indians", { ...common, card: request.sourceCard === undefined ? cardTitle(ctx.catalog, "indians") : card });
    case BangRequestKind.DUEL:
      return t("q.duel", common);
    case BangRequestKind.DYING:
      return mine ? t("q.dyingYou") : t("q.dying", { who });
    case BangRequestKind.STORE:
      return t("q.store", common);
    case BangRequestKind.DISCARD:
      return t("q.discard", common);
    case BangRequestKind.DRAW:
      return t("q.draw", common);
    case BangRequestKind.KIT_CARLSON:
      return t("q.kit", common);
    case BangRequestKind.PICK:
      return t("q.pick", common);
    case BangRequestKind.COST:
      return t("q.cost", { ...common, n: request.cardsToDiscard });
    case BangRequestKind.VICTIM_CARD:
      return t("q.victim", common);
    case BangRequestKind.COPY_CHARACTER:
      return t("q.copy", common);
    case BangRequestKind.UPGRADE: {
      const key = request.sourceCard?.name ?? "";
      const extra = request.extraTargets.map((s) => nameOf(ctx.names, s));
      const bought = request.upgradesBought === 0 ? "" : t("q.upgradeBought", { n: request.upgradesBought,
        also: extra.length > 0 ? t("q.upgradeAlso", { names: extra.join(", ") }) : "" });
      const rule = upgradeText(ctx.catalog, key);
      return t("q.upgrade", { ...common, bought, cubes: cubes(upgradeCost(ctx.catalog, key)),
        which: t(request.upgradesBought === 0 ? "q.upgradeIts" : "q.upgradeAnother"), rule: rule ? ` ${rule}` : "" });
    }
    case BangRequestKind.PAY_CUBES:
      return t("q.payCubes", { ...common, You: mine ? t("q.You") : who, cubes: cubes(request.cubesToPay) });
    case BangRequestKind.PLACE_CUBES:
      return t("q.placeCubes", { ...common, cubes: cubes(request.cubesToPlace) });
    case BangRequestKind.WEAPON:
      return t("q.weapon", { ...common, Whose: mine ? t("q.Your") : t("q.whose", { who }) });
    case BangRequestKind.REDRAW: {
      const self = request.opponentSeat !== undefined && request.opponentSeat === ctx.seat;
      const drawer = self ? t("act.redrawYou") : opponent;
      const flipped = request.cards.map((c) => `${cardTitle(ctx.catalog, c.name)} ${cardMark(c)}`).join(", ") || t("q.aCard");
      return t("q.redraw", { ...common, Drawer: self ? t("q.You") : opponent, drawer, flipped });
    }
    case BangRequestKind.IGNORE:
      return t("q.ignore", common);
    case BangRequestKind.DRAW_FOR_CUBES:
      return t("q.alPreacher", common);
    case BangRequestKind.PASS_BOMB:
      return t("q.passBomb", common);
    case BangRequestKind.DISCARD_ONE:
      return t("q.buntline", common);
    default:
      return t("q.decide", common);
  }
}
