// The live feed: each event WatchGame brings, in a line. It shows that the page follows the game as it
// happens; the board itself is always redrawn from the view, never patched from events.

import { BangEventKind, LifecycleEvent_Kind } from "@tabletop/client/browser";
import type { Event as GameEvent } from "@tabletop/client/browser";
import type { Context } from "./actions.js";
import { cardName, cardTitle, colorName, routeText } from "./names.js";

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
    return `${who(e.seat)}: ${BangEventKind[e.kind]?.toLowerCase().replace(/_/g, " ")}${cards ? ` ${cards}` : ""}${other}`;
  }
  return "";
}
