// The replay page, #/games/<id>/replay/<N>: the game as the spectator saw it at version N, stepped move by
// move forwards and backwards (first, back, forward, last; each a link, so every position has its own URL
// and the browser's history steps too). The view is GetGame's at_version (the server replays the seed and
// the log and answers the spectator's projection, so nothing hidden at N is ever sent), drawn by the same
// board code as the spectator's game page (ttr/, bang/) with no seat and no actions, beside the feed's lines
// for the moves up to N (GetGame's recent_events, as the spectator's feed worded them then).

import { anonymous, catalog, refusal } from "./api.js";
import type { Context } from "./actions.js";
import { drawBang } from "./bang/table.js";
import { drawTtr } from "./ttr/panel.js";
import { feedLines } from "./events.js";
import { h } from "./dom.js";
import { t } from "./i18n/index.js";
import type { Key } from "./i18n/index.js";
import { seatNames } from "./names.js";
import type { Page } from "./game.js";

/** The replay of game `name` (games/<id>) at `version` in `root`. */
export function openReplay(root: HTMLElement, name: string, version: number): Page {
  let stopped = false;
  void draw(root, name, version, () => stopped).catch((err: unknown) => {
    if (!stopped) {
      root.replaceChildren(refusal(err));
    }
  });
  return { stop: () => { stopped = true; } };
}

/** The address of the replay of `name` at `version`. */
export function replayHref(name: string, version: bigint | number): string {
  return `#/games/${name.replace(/^games\//, "")}/replay/${String(version)}`;
}

async function draw(root: HTMLElement, name: string, version: number, stopped: () => boolean): Promise<void> {
  const reply = await anonymous.getGame({ name, atVersion: BigInt(version) });
  const game = reply.game;
  const rules = await catalog(game?.ruleset ?? "");
  if (stopped() || game === undefined) {
    return;
  }
  const last = Number(game.version);
  const ctx: Context = { catalog: rules, view: reply.view, names: seatNames(game.seats), seat: undefined, actions: [] };
  const board = rules.catalog.case === "ttrEurope" ? drawTtr(ctx) : drawBang(ctx);
  const focused = document.activeElement?.getAttribute("data-testid") ?? null;
  root.replaceChildren(
    h("header", { class: "game-header" },
      h("h1", {}, `${t("replay.title")}: ${rules.ruleset?.displayName ?? game.ruleset}`),
      h("span", { class: "status", "data-testid": "replay-position" }, t("replay.position", { version, last })),
      h("nav", { class: "replay-controls", "aria-label": t("replay.controls") },
        step("replay-first", "replay.first", "⏮", name, 1, version > 1),
        step("replay-back", "replay.back", "◀", name, version - 1, version > 1),
        step("replay-forward", "replay.forward", "▶", name, version + 1, version < last),
        step("replay-last", "replay.last", "⏭", name, last, version < last)),
      h("a", { href: `#/games/${name.replace(/^games\//, "")}`, "data-testid": "replay-game" }, t("replay.game")),
      h("span", { class: "seats" }, ...game.seats.map((s) =>
        h("span", { class: `seat-chip p${s.index}`, "data-testid": "seat-chip" }, ctx.names[s.index] ?? "")))),
    h("div", { class: "play" }, board,
      // What happened at this move and the few before it, worded as the spectator's live feed said it.
      h("aside", {}, h("section", { class: "feed", "data-testid": "feed" }, h("h3", {}, t("replay.feed")),
        h("ul", {}, ...feedLines(reply.recentEvents, ctx).map((line) => h("li", {}, line)))))));
  if (focused !== null) {
    root.querySelector<HTMLElement>(`[data-testid="${focused}"]`)?.focus();  // keep stepping from the keyboard
  }
  root.dataset["version"] = String(version);
  root.dataset["ready"] = "replay";
}

/** One control: a link to that move, or a disabled one (no href, aria-disabled) at either end. */
function step(testid: string, key: Key, glyph: string, name: string, target: number, enabled: boolean): HTMLElement {
  const label = t(key);
  return enabled
    ? h("a", { class: "replay-step", href: replayHref(name, target), "data-testid": testid, "aria-label": label, title: label }, glyph)
    : h("a", { class: "replay-step", role: "link", "aria-disabled": "true", tabindex: "0", "data-testid": testid, "aria-label": label, title: label }, glyph);
}
