// A BANG! card as the page draws it, wherever it lies (hand, in play, a request's offer, the discard pile).

import type { BangCard, GetRulesetResponse } from "@tabletop/client/browser";
import { h } from "../dom.js";
import { cardMark, cardTitle } from "../names.js";

/** A card as a chip: its name, rank and suit; `data-card` is its id (the leak tests read it). */
export function cardChip(card: BangCard, catalog: GetRulesetResponse): HTMLElement {
  return h("span", { class: "bang-card", "data-card": card.id, title: card.id }, cardTitle(catalog, card.name), " ", h("small", {}, cardMark(card)));
}
