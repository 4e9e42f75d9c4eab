// The lobby: create a game of any ruleset with its options (the creator takes seat 0), and the public games
// (ListGames) to open, join or watch. A created game is public unless unticked, so others find it here;
// the join link (on the game page) works for private games too.

import type { Game, Ruleset } from "@tabletop/client/browser";
import { GameStatus } from "@tabletop/client/browser";
import { anonymous, catalog, errorText, saveCredential } from "./api.js";
import { h } from "./dom.js";
import { dealMark } from "./fairplay.js";
import { seatNames } from "./names.js";
import { optionInputs } from "./options.js";

/** Draw the lobby into `root`. */
export async function showLobby(root: HTMLElement): Promise<void> {
  const { rulesets } = await anonymous.listRulesets({});
  const games = h("section", { class: "games", "data-testid": "games" });
  root.replaceChildren(h("h1", {}, "Lobby"), await createForm(rulesets), games);
  await listGames(games, rulesets);
}

/** A game id from its resource name (games/abc -> abc), as the page's links use it. */
export function gameId(name: string): string {
  return name.replace(/^games\//, "");
}

// Helpers

async function createForm(rulesets: Ruleset[]): Promise<HTMLElement> {
  const select = h("select", { name: "ruleset", "data-testid": "ruleset" },
    ...rulesets.map((r) => h("option", { value: r.id }, r.displayName)));
  const seats = h("input", { type: "number", name: "seats", "data-testid": "seats", value: 2, min: 2, max: 8 });
  const player = h("input", { name: "displayName", "data-testid": "display-name", placeholder: "your name",
    required: true, maxlength: 64 });
  const open = h("input", { type: "checkbox", name: "public", checked: true });
  const options = h("div");
  const message = h("p", { class: "error", "data-testid": "create-error" });
  let read = (): unknown => undefined;
  const pick = async (): Promise<void> => {
    const ruleset = rulesets.find((r) => r.id === select.value) ?? rulesets[0];
    if (ruleset === undefined) {
      return;
    }
    seats.min = String(ruleset.minSeats);
    seats.max = String(ruleset.maxSeats);
    seats.value = String(Math.min(Math.max(Number(seats.value), ruleset.minSeats), ruleset.maxSeats));
    const inputs = optionInputs(ruleset, await catalog(ruleset.id));
    options.replaceChildren(inputs.element);
    read = inputs.read;
  };
  select.addEventListener("change", () => void pick());
  await pick();
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    message.textContent = "";
    try {
      const created = await anonymous.createGame({
        ruleset: select.value, seatCount: Number(seats.value), displayNames: [player.value.trim()],
        options: read() as never, public: open.checked,
      });
      const name = created.game?.name ?? "";
      const own = created.credentials[0];
      if (own !== undefined) {
        saveCredential(name, { seat: own.seat, token: own.playerToken });
      }
      location.hash = `#/games/${gameId(name)}`;
    } catch (err) {
      message.textContent = errorText(err);
    }
  };
  return h("form", { class: "create", "data-testid": "create-form", onsubmit: (e) => void submit(e) },
    h("h2", {}, "New game"),
    h("label", {}, "Game ", select), h("label", {}, "Seats ", seats), h("label", {}, "Your name ", player),
    options, h("label", {}, open, " Listed in the lobby"),
    h("button", { type: "submit", "data-testid": "create" }, "Create"), message);
}

async function listGames(section: HTMLElement, rulesets: Ruleset[]): Promise<void> {
  const names = new Map(rulesets.map((r) => [r.id, r.displayName]));
  let games: Game[] = [];
  try {
    games = (await anonymous.listGames({ pageSize: 50 })).games;
  } catch (err) {
    section.replaceChildren(h("p", { class: "error" }, errorText(err)));
    return;
  }
  const rows = games.map((game) => {
    const taken = game.seats.filter((s) => s.occupied).length;
    return h("tr", { "data-game": game.name },
      h("td", {}, names.get(game.ruleset) ?? game.ruleset),
      h("td", {}, seatNames(game.seats).filter((_, i) => game.seats[i]?.occupied).join(", ")),
      h("td", {}, `${taken}/${game.seats.length}`),
      h("td", {}, GameStatus[game.status].toLowerCase(), ...dealMark(game)),
      h("td", {}, h("a", { href: `#/games/${gameId(game.name)}` }, game.status === GameStatus.WAITING ? "Join" : "Watch")));
  });
  section.replaceChildren(h("h2", {}, "Open games"),
    rows.length === 0 ? h("p", {}, "No public game yet: create one.")
      : h("table", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "Players"), h("th", {}, "Seats"),
        h("th", {}, "Status"), h("th", {})), ...rows),
    h("button", { type: "button", onclick: () => void listGames(section, rulesets) }, "Refresh"));
}
