// The actions panel: every action ListLegalActions offered, as one button each, grouped by kind and
// worded from the catalog and the view. A click sends that very message back (SubmitAction), so the page
// can play every action the rules allow without knowing the rules. A BANG! answer is worded from the
// request it answers (the top of `pending`): a `choose` pays a cube, places one, passes the Bomb, and so on.

import { BangCardColor, BangDrawSource, BangRequestKind } from "@tabletop/client/browser";
import type { Action, BangAction, BangChoose, BangUseAbility, BangView, GetRulesetResponse, TtrEuropeAction, TtrEuropeView, View } from "@tabletop/client/browser";
import { h } from "./dom.js";
import { has, t } from "./i18n/index.js";
import { cardName, cardTitle, characterName, colorName, cubeCost, cubesText, nameOf, paymentText, routeText, ticketText, upgradeCost } from "./names.js";

/** What a renderer needs: the catalog, the caller's view, seat names, and the caller's seat if any; for a
 * seat, its legal actions and `offer`, which the board calls with the actions an element stands for (a
 * route's claims, a card's plays): one is sent at once, several are asked about (which payment, which target). */
export interface Context {
  catalog: GetRulesetResponse;
  view: View | undefined;
  names: string[];
  seat: number | undefined;
  actions?: Action[];
  offer?: (title: string, actions: Action[]) => void;
}

/** Make a board element act like a button (click, Enter, Space) with a label for screen readers. */
export function actionable(element: Element, label: string, run: () => void): void {
  element.setAttribute("tabindex", "0");
  element.setAttribute("role", "button");
  element.setAttribute("aria-label", label);
  element.classList.add("actionable");
  element.addEventListener("click", run);
  element.addEventListener("keydown", (event) => {
    const key = (event as KeyboardEvent).key;
    if (key === "Enter" || key === " ") {
      event.preventDefault();
      run();
    }
  });
}

/** Make a board element (a card, the deck) offer `actions` when there are any: a click sends the one, or asks
 * which of several; `data-actions` says how many it stands for. */
export function offering(element: HTMLElement, ctx: Context, label: string, title: string, actions: Action[]): HTMLElement {
  const offer = ctx.offer;
  if (offer !== undefined && actions.length > 0) {
    // The label starts with the element's visible words (WCAG 2.5.3, label in name): "Deck (40): draw from it".
    const shown = (element.textContent ?? "").replace(/\s+/g, " ").trim();
    actionable(element, shown === "" || label.includes(shown) ? label : `${shown}: ${label}`, () => offer(title, actions));
    element.dataset["actions"] = String(actions.length);
  }
  return element;
}

/** The choice the board asked for (a route's payments, a card's targets), as buttons with a Cancel. */
export function choicePanel(title: string, actions: Action[], ctx: Context, busy: boolean, pick: (action: Action) => void,
  cancel: () => void): HTMLElement {
  return h("section", { class: "choice", "data-testid": "choice", role: "group", "aria-label": title }, h("h3", {}, title),
    h("div", { class: "buttons" }, ...actions.map((action) => h("button", { type: "button", "data-testid": "choice-option",
      "data-index": (ctx.actions ?? []).indexOf(action), disabled: busy, onclick: () => pick(action) }, describe(action, ctx))),
    h("button", { type: "button", class: "cancel", "data-testid": "choice-cancel", onclick: cancel }, t("ttr.cancel"))));
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
  const title = t(ctx.seat === undefined ? "actions.spectating" : actions.length === 0 ? "actions.waiting" : "actions.yourMove");
  return h("section", { class: "actions", "data-testid": "actions", "data-count": actions.length }, h("h3", {}, title),
    ...[...groups].map(([kind, buttons]) => {
      // Every group starts open (the main moves are never hidden); a long one scrolls, and the board
      // offers the same moves by clicking a route or a card.
      const group = h("details", { open: openGroups.get(kind) ?? true, "data-group": kind },
        h("summary", {}, t("actions.group", { label: label(kind), n: buttons.length })), h("div", { class: "buttons" }, ...buttons));
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
  return t("actions.unknown");
}

// Helpers

function describeTtr(action: TtrEuropeAction, ctx: Context): string {
  const view = ctx.view?.game.case === "ttrEurope" ? ctx.view.game.value : undefined;
  const kind = action.kind;
  switch (kind.case) {
    case "drawTrainCard":
      return kind.value.faceUpSlot === undefined ? t("act.drawDeck")
        : t("act.takeFaceUp", { color: colorName(view?.faceUp[kind.value.faceUpSlot] ?? 0) });
    case "claimRoute":
      return t("act.claim", { route: routeText(ctx.catalog, kind.value.routeId), payment: paymentText(kind.value.payment) });
    case "buildStation":
      return t("act.station", { city: kind.value.city, payment: paymentText(kind.value.payment) });
    case "drawTickets":
      return t("act.drawTickets");
    case "keepTickets":
      return t("act.keepTickets", { tickets: kind.value.ticketIds.map((id) => offered(view, ctx, id)).join("; ") });
    case "payTunnel":
      return t("act.payTunnel", { payment: paymentText(kind.value.payment) });
    case "withdrawTunnel":
      return t("act.withdrawTunnel");
    case "passTurn":
      return t("act.passTurn");
    default:
      return t("actions.unknown");
  }
}

function offered(view: TtrEuropeView | undefined, ctx: Context, id: number): string {
  const ticket = view?.private?.offeredTickets.find((t) => t.id === id);
  return ticket === undefined ? t("ttr.ticketUnknown", { id }) : ticketText(ctx.catalog, ticket);
}

function describeBang(action: BangAction, ctx: Context): string {
  const view = ctx.view?.game.case === "bang" ? ctx.view.game.value : undefined;
  const at = (seat: number | undefined): string => (seat === undefined ? "" : t("act.at", { name: seatName(ctx, seat) }));
  const pick = (value: string): string => (value === "" ? "" : t("act.taking", { what: pickText(view, ctx, value) }));
  const request = view?.pending.at(-1);
  const kind = action.kind;
  switch (kind.case) {
    case "play":
      return t("act.play", { card: cardName(ctx.catalog, view, kind.value.card), target: at(kind.value.targetSeat),
        pick: pick(kind.value.pick), loaded: loaded(view, ctx, kind.value.card) });
    case "use": {
      const card = cardName(ctx.catalog, view, kind.value.card);
      if (request?.kind === BangRequestKind.WEAPON) {
        return t("act.weaponCube", { card });
      }
      if (request?.kind === BangRequestKind.REDRAW) {
        return t("act.redrawCube", { card, who: request.opponentSeat === ctx.seat ? t("act.redrawYou") : seatName(ctx, request.opponentSeat) });
      }
      const cost = cubeCost(ctx.catalog, cardKey(view, kind.value.card));
      const paying = cost > 0 ? t("act.paying", { n: cost }) : "";
      return t("act.use", { card, paying, target: at(kind.value.targetSeat), pick: pick(kind.value.pick) });
    }
    case "respond":
      return t("act.respond", { card: cardName(ctx.catalog, view, kind.value.card) });
    case "barrel":
      return t("act.barrel", { card: cardName(ctx.catalog, view, kind.value.card) });
    case "pass":
      return passText(view);
    case "choose":
      return chooseText(kind.value, view, ctx);
    case "draw":
      return kind.value.source === BangDrawSource.DISCARD ? t("act.drawDiscard")
        : kind.value.source === BangDrawSource.PLAYER ? t("act.drawPlayer", { name: seatName(ctx, kind.value.targetSeat) })
          : t("act.drawBangDeck");
    case "discard":
      return t("act.discard", { card: cardName(ctx.catalog, view, kind.value.card) });
    case "ability":
      return abilityText(kind.value, view, ctx);
    case "upgrade": {
      const key = request?.sourceCard?.name ?? "";
      const cost = upgradeCost(ctx.catalog, key);
      const more = (request?.upgradesBought ?? 0) > 0 ? t("act.upgradeMore") : "";
      const also = kind.value.targetSeat === undefined ? "" : t("act.upgradeAlso", { name: seatName(ctx, kind.value.targetSeat) });
      return t("act.upgrade", { card: key === "" ? t("act.theCard") : cardTitle(ctx.catalog, key), more, also, cost: cubesText(cost) });
    }
    case "endTurn":
      return t("act.endTurn");
    default:
      return t("actions.unknown");
  }
}

function seatName(ctx: Context, seat: number | undefined): string {
  return nameOf(ctx.names, seat);
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
  return row?.color === BangCardColor.ORANGE ? t("act.loaded") : "";
}

/** The cubes on one of the viewer's holders ("character" or an orange card in play). */
function cubesOn(view: BangView | undefined, ctx: Context, holder: string): number {
  const me = view?.players.find((p) => p.seat === ctx.seat);
  return holder === "character" ? me?.cubes ?? 0 : me?.cardCubes.find((c) => c.cardId === holder)?.cubes ?? 0;
}

function chooseText(choose: BangChoose, view: BangView | undefined, ctx: Context): string {
  const request = view?.pending.at(-1);
  if (choose.targetSeat !== undefined) {
    return request?.kind === BangRequestKind.PASS_BOMB ? t("act.passBomb", { name: seatName(ctx, choose.targetSeat) })
      : t("act.chooseSeat", { name: seatName(ctx, choose.targetSeat) });
  }
  if (choose.card !== "") {
    return t("act.choose", { what: cardName(ctx.catalog, view, choose.card) });
  }
  const holder = choose.pick === "character" ? t("act.yourCharacter") : cardName(ctx.catalog, view, choose.pick);
  const n = cubesOn(view, ctx, choose.pick);
  switch (request?.kind) {
    case BangRequestKind.PAY_CUBES:
      return t("act.payCube", { holder, n });
    case BangRequestKind.PLACE_CUBES:
      return t(request.cubesToPlace === 1 ? "act.placeCube" : "act.placeCubes", { holder, n });
    case BangRequestKind.COPY_CHARACTER:
      return t("act.copy", { name: characterName(ctx.catalog, choose.pick) });
    default:
      return t("act.choose", { what: pickText(view, ctx, choose.pick) });
  }
}

function abilityText(ability: BangUseAbility, view: BangView | undefined, ctx: Context): string {
  const request = view?.pending.at(-1);
  if (request?.kind === BangRequestKind.IGNORE) {
    return t("act.ignore", { card: request.sourceCard === undefined ? t("act.theCard") : cardTitle(ctx.catalog, request.sourceCard.name) });
  }
  if (request?.kind === BangRequestKind.DRAW_FOR_CUBES) {
    return t("act.alPreacher");
  }
  const names = ability.cards.map((c) => cardName(ctx.catalog, view, c));
  const target = ability.targetSeat === undefined ? "" : seatName(ctx, ability.targetSeat);
  const character = view?.players.find((p) => p.seat === ctx.seat)?.character ?? "";
  const and = t("act.and");
  switch (character) {
    case "bass_greeves":
      return t("act.bassGreeves", { cards: names.join(and) });
    case "frankie_canton":
      return t("act.frankieCanton", { from: names.length > 0 ? names.join(and) : t("act.frankieCharacter", { name: target }) });
    case "mexicali_kid":
      return t("act.mexicali", { name: target });
    case "red_ringo":
      return t(names.length === 1 ? "act.redRingo1" : "act.redRingo2", { cards: [...new Set(names)].join(and) });
    default: {
      // Whatever the character (Vera Custer copies one): cards from the hand are discarded, others named.
      const hand = new Set((view?.hand ?? []).map((c) => c.id));
      const cards = names.length === 0 ? "" : ability.cards.every((c) => hand.has(c)) ? t("act.abilityDiscard", { cards: names.join(and) })
        : t("act.abilityWith", { cards: names.join(and) });
      return t("act.ability", { cards, target: target === "" ? "" : t("act.at", { name: target }) });
    }
  }
}

function pickText(view: BangView | undefined, ctx: Context, value: string): string {
  if (value === "hand") {
    return t("act.randomHand");
  }
  if (value === "character") {
    return t("act.yourCharacter");
  }
  const name = cardName(ctx.catalog, view, value);
  return name === value ? characterName(ctx.catalog, value) : name;
}

function passText(view: BangView | undefined): string {
  const request = view?.pending.at(-1);
  switch (request?.kind) {
    case BangRequestKind.BANG:
    case BangRequestKind.INDIANS:
      return t("pass.take");
    case BangRequestKind.DUEL:
      return t("pass.duel");
    case BangRequestKind.DYING:
      return t("pass.dying");
    case BangRequestKind.UPGRADE:
      return t(request.upgradesBought === 0 ? "pass.noUpgrade" : "pass.noMoreUpgrades");
    case BangRequestKind.WEAPON:
      return t("pass.weapon");
    case BangRequestKind.REDRAW:
      return t("pass.redraw");
    case BangRequestKind.IGNORE:
      return t("pass.ignore");
    case BangRequestKind.DRAW_FOR_CUBES:
      return t("pass.keepCubes");
    case BangRequestKind.PLACE_CUBES:
      // A recharge cube (AD-009, AD-011): the rulebook says you *may* add 1; declined, it stays in the supply.
      return t("pass.dontAdd");
    default:
      return t("pass.pass");
  }
}

function label(kind: string): string {
  const key = `group.${kind}`;
  return has(key) ? t(key) : t("group.action");
}
