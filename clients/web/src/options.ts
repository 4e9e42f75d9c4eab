// The create form's options, drawn from the ruleset's own description (ListRulesets): every option whose
// allowed values are false/true is a checkbox, and BANG!'s "expansions" is one checkbox per expansion the
// contract names, enabled once the catalog holds its cards (so a new expansion appears here by itself,
// and one announced but not shipped yet shows as "not available yet"). Labels and help texts come from the
// wording layer (options.<name>); an option added to the server later shows by its name until worded.

import { BangExpansion } from "@tabletop/client/browser";
import type { GameOptions, GetRulesetResponse, Ruleset } from "@tabletop/client/browser";
import { h } from "./dom.js";
import { has, t } from "./i18n/index.js";

/** The inputs of a ruleset's options: the element, the GameOptions they say, and the option values ticked
 * ("expansions=BANG_EXPANSION_DODGE_CITY", "sheriffExtraCard=true"), which seat counts may need. */
export interface OptionInputs {
  element: HTMLElement;
  read: () => GameOptions | undefined;
  chosen: () => Set<string>;
}

/** The option inputs of `ruleset`; `changed` is called whenever one is ticked or unticked. */
export function optionInputs(ruleset: Ruleset, catalog: GetRulesetResponse, changed: () => void): OptionInputs {
  const flags = ruleset.options.filter((o) => o.allowedValues.join() === "false,true");
  const expansions = ruleset.options.find((o) => o.name === "expansions");
  const shipped = shippedExpansions(catalog);
  const boxes = flags.map((option) => ({
    name: camel(option.name),
    input: h("input", { type: "checkbox", name: camel(option.name), checked: option.defaultValue === "true", onchange: changed }),
    option,
  }));
  const expansionBoxes = (expansions?.allowedValues ?? []).map((value) => {
    const short = value.replace(/^BANG_EXPANSION_/, "");
    const enumValue = BangExpansion[short as keyof typeof BangExpansion];
    const available = shipped.has(enumValue);
    return { enumValue, input: h("input", { type: "checkbox", name: value, disabled: !available, onchange: changed }),
      value, available, short };
  });
  const element = h("fieldset", { class: "options" }, h("legend", {}, t("options.legend")),
    ...expansionBoxes.map((box) => h("label", { title: word(`options.expansion.${box.short}.help`, "") }, box.input,
      ` ${word(`options.expansion.${box.short}`, title(box.short))}`, box.available ? "" : ` ${t("options.notAvailable")}`)),
    ...boxes.map((box) => h("label", { title: word(`options.${box.name}.help`, "") }, box.input,
      ` ${word(`options.${box.name}`, title(box.option.name))}`)),
    boxes.length + expansionBoxes.length === 0 ? h("span", {}, t("options.none")) : null);
  const read = (): GameOptions | undefined => {
    const value: Record<string, unknown> = {};
    for (const box of boxes) {
      value[box.name] = box.input.checked;
    }
    const chosen = expansionBoxes.filter((box) => box.input.checked).map((box) => box.enumValue);
    if (expansions !== undefined) {
      value["expansions"] = chosen;
    }
    const which = camel(ruleset.id);
    return { ruleset: { case: which, value } } as unknown as GameOptions;
  };
  const chosen = (): Set<string> => new Set([
    ...expansionBoxes.filter((box) => box.input.checked).map((box) => `expansions=${box.value}`),
    ...boxes.filter((box) => box.input.checked).map((box) => `${box.option.name}=true`)]);
  return { element, read, chosen };
}

/** The seat counts `ruleset` allows with the options `chosen` (its seat_ranges; all of min..max without). */
export function allowedSeats(ruleset: Ruleset, chosen: Set<string>): number[] {
  const all = Array.from({ length: ruleset.maxSeats - ruleset.minSeats + 1 }, (_, i) => ruleset.minSeats + i);
  if (ruleset.seatRanges.length === 0) {
    return all;
  }
  return all.filter((n) => ruleset.seatRanges.some((r) => n >= r.minSeats && n <= r.maxSeats
    && r.requiredOptions.every((o) => chosen.has(`${o.option}=${o.value}`))));
}

// Helpers

function word(key: string, fallback: string): string {
  return has(key) ? t(key) : fallback;
}

function shippedExpansions(reply: GetRulesetResponse): Set<BangExpansion> {
  const shipped = new Set<BangExpansion>();
  if (reply.catalog.case === "bang") {
    for (const item of [...reply.catalog.value.cards, ...reply.catalog.value.characters]) {
      shipped.add(item.expansion);
    }
  }
  return shipped;
}

function camel(name: string): string {
  return name.replace(/[-_]([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function title(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
