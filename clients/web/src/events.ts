// The live feed: each event WatchGame brings, in a line worded from the wording layer (i18n/), never the
// event's raw kind. It shows that the page follows the game as it happens; the board itself is always
// redrawn from the view, never patched from events. A line reads the way it happened: "Ann hit Bob: −1 life
// point" (the event's `seat` is whoever lost the life, its `other_seat` who caused it). An Armed & Dangerous
// CUBES event says how many cubes went on or off which holder, and why; a declined recharge cube says so.

import { BangEventKind, BangRole, LifecycleEvent_Kind } from "@tabletop/client/browser";
import type { BangEvent, Event as GameEvent, TtrEuropeEvent } from "@tabletop/client/browser";
import type { Context } from "./actions.js";
import { has, t, tn } from "./i18n/index.js";
import { cardName, cardTitle, characterName, colorName, nameOf, routeText } from "./names.js";

/** How many events the feed keeps (the live page's and a replay's alike). */
export const FEED_LENGTH = 12;

/** The feed's lines for `events` (oldest first): the last FEED_LENGTH events worded, newest first, each
 * after its version ("7: Ann drew a card"). */
export function feedLines(events: GameEvent[], ctx: Context): string[] {
  return events.slice(-FEED_LENGTH).map((event) => ({ version: event.version, text: describeEvent(event, ctx) }))
    .filter((line) => line.text !== "").map((line) => `${line.version}: ${line.text}`).reverse();
}

/** One event in words ("" for the ones not worth a line). */
export function describeEvent(event: GameEvent, ctx: Context): string {
  const kind = event.kind;
  if (kind.case === "lifecycle") {
    const name = LifecycleEvent_Kind[kind.value.kind] ?? "";
    const key = `ev.${name}`;
    return has(key) ? t(key, { who: nameOf(ctx.names, kind.value.seat) }) : "";
  }
  if (kind.case === "ttrEurope") {
    return ttrLine(kind.value, ctx);
  }
  if (kind.case === "bang") {
    return bangLine(kind.value, ctx);
  }
  return "";
}

// Helpers

function ttrLine(event: TtrEuropeEvent, ctx: Context): string {
  const who = (seat: number): string => nameOf(ctx.names, seat);
  const colors = (list: number[]): string => list.map(colorName).join(", ");
  const e = event.kind;
  switch (e.case) {
    case "trainCardDrawn":
      return t("ev.drew", { who: who(e.value.seat), what: e.value.color ? colorName(e.value.color) : t("ev.aCard") });
    case "faceUpChanged":
      return t(e.value.reset ? "ev.faceUpReset" : "ev.faceUp", { colors: colors(e.value.faceUp) });
    case "deckReshuffled":
      return t("ev.reshuffled", { n: e.value.deckCount });
    case "routeClaimed":
      return t("ev.claimed", { who: who(e.value.seat), route: routeText(ctx.catalog, e.value.routeId) });
    case "stationBuilt":
      return t("ev.station", { who: who(e.value.seat), city: e.value.city });
    case "ticketsDrawn":
      return t("ev.ticketsDrawn", { who: who(e.value.seat), n: e.value.count });
    case "ticketsKept":
      return tn("ev.ticketsKept", e.value.keptCount, { who: who(e.value.seat) });
    case "tunnelRevealed":
      return t("ev.tunnelRevealed", { who: who(e.value.seat), route: routeText(ctx.catalog, e.value.routeId),
        colors: colors(e.value.revealed), n: e.value.extraCost });
    case "tunnelWithdrawn":
      return t("ev.tunnelWithdrawn", { who: who(e.value.seat), route: routeText(ctx.catalog, e.value.routeId) });
    case "turnStarted":
      return t("ev.turn", { who: who(e.value.seat) });
    case "lastRoundStarted":
      return t("ev.lastRound", { who: who(e.value.seat), n: e.value.trains });
    case "gameScored":
      return t("ev.scored");
    case "turnPassed":
      return t("ev.passed", { who: who(e.value.seat) });
    default:
      return "";
  }
}

function bangLine(e: BangEvent, ctx: Context): string {
  const view = ctx.view?.game.case === "bang" ? ctx.view.game.value : undefined;
  const cards = e.cards.map((c) => (c.name ? cardTitle(ctx.catalog, c.name) : cardName(ctx.catalog, view, c.id))).join(", ");
  const who = nameOf(ctx.names, e.seat);
  const other = e.otherSeat === undefined ? "" : nameOf(ctx.names, e.otherSeat);
  const n = e.count || e.cards.length;
  const base = { who, other, cards, life: e.life };
  switch (e.kind) {
    case BangEventKind.TURN_STARTED:
      return t("bev.TURN_STARTED", base);
    case BangEventKind.DRAW:
      return cards ? t("bev.DRAW", base) : tn("bev.DRAW_HIDDEN", n, base);
    case BangEventKind.CHECK:
      return t("bev.CHECK", { ...base, result: t(e.success ? "bev.checkYes" : "bev.checkNo") });
    case BangEventKind.PLAY:
      return t(other ? "bev.PLAY_AT" : "bev.PLAY", base);
    case BangEventKind.RESPOND:
      return t("bev.RESPOND", base);
    case BangEventKind.PASS:
      if (e.reason === "recharge" || e.reason === "hand_limit") {
        return t("bev.cubesDeclined", { who, why: cubeReason(e.reason, ctx) });
      }
      return t("bev.PASS", base);
    case BangEventKind.DISCARD:
      return cards ? t("bev.DISCARD", base) : tn("bev.DISCARD_HIDDEN", n, base);
    case BangEventKind.TAKE:
      if (!cards && other) {
        return tn("bev.TAKE_HIDDEN_FROM", n, base);
      }
      return t(other ? "bev.TAKE_FROM" : "bev.TAKE", base);
    case BangEventKind.DAMAGE:
      return tn(other && e.otherSeat !== e.seat ? "bev.DAMAGE_BY" : "bev.DAMAGE", Math.abs(e.amount) || 1, base);
    case BangEventKind.HEAL:
      return tn("bev.HEAL", Math.abs(e.amount) || 1, base);
    case BangEventKind.EQUIP:
      return t(other && e.otherSeat !== e.seat ? "bev.EQUIP_AT" : "bev.EQUIP", base);
    case BangEventKind.MOVE:
      return t("bev.MOVE", base);
    case BangEventKind.EXPLODE:
      return t("bev.EXPLODE", base);
    case BangEventKind.JAIL:
      return t("bev.JAIL", { ...base, result: t(e.success ? "bev.jailFree" : "bev.jailStays") });
    case BangEventKind.BARREL:
      return t("bev.BARREL", { ...base, result: t(e.success ? "bev.barrelYes" : "bev.barrelNo") });
    case BangEventKind.REVEAL:
      return t("bev.REVEAL", base);
    case BangEventKind.LOOK:
      return t("bev.LOOK", base);
    case BangEventKind.PUT_BACK:
      return t("bev.PUT_BACK", base);
    case BangEventKind.CHOOSE:
      return t("bev.CHOOSE", base);
    case BangEventKind.ELIMINATED:
      return t("bev.ELIMINATED", { ...base, role: roleName(e.role) });
    case BangEventKind.GAME_OVER:
      return t("bev.GAME_OVER", { names: e.seats.map((s) => nameOf(ctx.names, s)).join(", ") });
    case BangEventKind.RESHUFFLE:
      return t("bev.RESHUFFLE");
    case BangEventKind.END_TURN:
      return t("bev.END_TURN", base);
    case BangEventKind.USE:
      return t(other ? "bev.USE_AT" : "bev.USE", base);
    case BangEventKind.UNAFFECTED:
      return t("bev.UNAFFECTED", base);
    case BangEventKind.CUBES: {
      const count = tn("bev.cubeWord", Math.abs(e.amount));
      const why = e.reason ? ` (${cubeReason(e.reason, ctx)})` : "";
      return t(e.amount < 0 ? "bev.cubesOff" : "bev.cubesOn", { who, n: count, holder: cards || t("bev.character"), why });
    }
    default:
      return "";
  }
}

function roleName(role: BangRole): string {
  const key = `role.${BangRole[role] ?? ""}`;
  return has(key) ? t(key) : "";
}

/** Why cubes moved, in words: the engine's reason, a card's or a character's printed name. */
function cubeReason(reason: string, ctx: Context): string {
  const key = `cube.${reason}`;
  if (has(key)) {
    return t(key);
  }
  const card = cardTitle(ctx.catalog, reason);
  return card !== reason ? card : characterName(ctx.catalog, reason).replace(/_/g, " ");
}
