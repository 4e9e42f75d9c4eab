// The live feed: each event WatchGame brings, in a line. It shows that the page follows the game as it
// happens; the board itself is always redrawn from the view, never patched from events. An Armed & Dangerous
// CUBES event says how many cubes went on or off which holder, and why ("+3 cubes on Whip (loaded)"); a recharge
// cube declined ("Don't add") says so.

import { BangEventKind, LifecycleEvent_Kind } from "@tabletop/client/browser";
import type { Event as GameEvent } from "@tabletop/client/browser";
import type { Context } from "./actions.js";
import { cardName, cardTitle, characterName, colorName, routeText } from "./names.js";

/** One event in words ("" for the ones not worth a line). */
export function describeEvent(event: GameEvent, ctx: Context): string {
  const who = (seat: number | undefined): string => (seat === undefined ? "someone" : ctx.names[seat] ?? `seat ${seat}`);
  const kind = event.kind;
  if (kind.case === "lifecycle") {
    return `${LifecycleEvent_Kind[kind.value.kind]?.toLowerCase().replace(/_/g, " ")} ${kind.value.seat === undefined ? "" : who(kind.value.seat)}`;
  }
  if (kind.case === "ttrEurope") {
    const e = kind.value.kind;
    switch (e.case) {
      case "trainCardDrawn":
        return `${who(e.value.seat)} drew ${e.value.color ? colorName(e.value.color) : "a card"}`;
      case "routeClaimed":
        return `${who(e.value.seat)} claimed ${routeText(ctx.catalog, e.value.routeId)}`;
      case "stationBuilt":
        return `${who(e.value.seat)} built a station in ${e.value.city}`;
      case "ticketsKept":
        return `${who(e.value.seat)} kept ${e.value.keptCount} ticket(s)`;
      case "turnStarted":
        return `${who(e.value.seat)}'s turn`;
      default:
        return e.case ?? "";
    }
  }
  if (kind.case === "bang") {
    const e = kind.value;
    const view = ctx.view?.game.case === "bang" ? ctx.view.game.value : undefined;
    const cards = e.cards.map((c) => (c.name ? cardTitle(ctx.catalog, c.name) : cardName(ctx.catalog, view, c.id))).join(", ");
    const other = e.otherSeat === undefined ? "" : ` → ${who(e.otherSeat)}`;
    if (e.kind === BangEventKind.CUBES) {
      const n = Math.abs(e.amount);
      return `${who(e.seat)}: ${e.amount < 0 ? "-" : "+"}${n} cube${n === 1 ? "" : "s"} ${e.amount < 0 ? "off" : "on"} ` +
        `${cards || "character"}${e.reason ? ` (${cubeReason(e.reason, ctx)})` : ""}`;
    }
    if (e.kind === BangEventKind.PASS && (e.reason === "recharge" || e.reason === "hand_limit")) {
      return `${who(e.seat)}: did not add the cube (${cubeReason(e.reason, ctx)}); it stays in the supply`;
    }
    return `${who(e.seat)}: ${BangEventKind[e.kind]?.toLowerCase().replace(/_/g, " ")}${cards ? ` ${cards}` : ""}${other}`;
  }
  return "";
}

// Helpers

/** Why cubes moved, in words: the engine's reason, a card's or a character's printed name. */
const CUBE_REASONS: Record<string, string> = {
  loaded: "loaded", recharge: "recharge", hand_limit: "discarded in phase 3", use: "used", weapon: "weapon's effect",
  upgrade: "upgrade", rust: "Rust", bomb: "the Bomb's draw!", reloading: "Reloading",
};

function cubeReason(reason: string, ctx: Context): string {
  const card = cardTitle(ctx.catalog, reason);
  return CUBE_REASONS[reason] ?? (card !== reason ? card : characterName(ctx.catalog, reason).replace(/_/g, " "));
}
