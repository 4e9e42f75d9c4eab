// A BANG! card as the page draws it, wherever it lies (hand, in play, a request's offer, the discard pile).

import type { BangCard, GetRulesetResponse } from "@tabletop/client/browser";
import { h } from "../dom.js";
import { cardMark, cardText, cardTitle, cubesText } from "../names.js";

/** A card as a chip: its name, rank and suit, and what it does (the catalog's text) as its tooltip; `data-card`
 * is its id (the leak tests read it). An orange card in play (Armed & Dangerous) also shows the cubes on it. */
export function cardChip(card: BangCard, catalog: GetRulesetResponse, cubes?: number): HTMLElement {
  return h("span", { class: "bang-card", "data-card": card.id, title: cardText(catalog, card.name) },
    cardTitle(catalog, card.name), " ", h("small", {}, cardMark(card)), cubes === undefined ? null : cubeMarks(cubes, "card-cubes"));
}

/** Cubes as marks ("■■■ 3"), with `data-cubes` for the tests; `testid` says whose they are. */
export function cubeMarks(count: number, testid: string): HTMLElement {
  return h("span", { class: "cubes", "data-testid": testid, "data-cubes": count, title: cubesText(count) },
    ` ${"■".repeat(Math.max(count, 0))} ${count}`);
}
