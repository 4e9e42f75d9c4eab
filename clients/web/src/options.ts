// The create form's options, drawn from the ruleset's own description (ListRulesets): every option whose
// allowed values are false/true is a checkbox, and BANG!'s "expansions" is one checkbox per expansion the
// contract names, enabled once the catalog holds its cards (so a new expansion appears here by itself,
// and one announced but not shipped yet shows as "not available yet").

import { BangExpansion } from "@tabletop/client/browser";
import type { GameOptions, GetRulesetResponse, Ruleset } from "@tabletop/client/browser";
import { h } from "./dom.js";

/** The option inputs of `ruleset`, inside `form`; `read()` builds the GameOptions from them. */
export function optionInputs(ruleset: Ruleset, catalog: GetRulesetResponse): { element: HTMLElement; read: () => GameOptions | undefined } {
  const flags = ruleset.options.filter((o) => o.allowedValues.join() === "false,true");
  const expansions = ruleset.options.find((o) => o.name === "expansions");
  const shipped = shippedExpansions(catalog);
  const boxes = flags.map((option) => ({
    name: camel(option.name),
    input: h("input", { type: "checkbox", name: camel(option.name), checked: option.defaultValue === "true" }),
    option,
  }));
  const expansionBoxes = (expansions?.allowedValues ?? []).map((value) => {
    const enumValue = BangExpansion[value.replace(/^BANG_EXPANSION_/, "") as keyof typeof BangExpansion];
    const available = shipped.has(enumValue);
    return { enumValue, input: h("input", { type: "checkbox", name: value, disabled: !available }), value, available };
  });
  const element = h("fieldset", { class: "options" }, h("legend", {}, "Options"),
    ...expansionBoxes.map((box) => h("label", { title: expansions?.description ?? "" }, box.input,
      ` ${title(box.value.replace(/^BANG_EXPANSION_/, ""))}`, box.available ? "" : " (not available yet)")),
    ...boxes.map((box) => h("label", { title: box.option.description }, box.input, ` ${title(box.option.name)}`)),
    boxes.length + expansionBoxes.length === 0 ? h("span", {}, "none") : null);
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
  return { element, read };
}

// Helpers

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
