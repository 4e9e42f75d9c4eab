// Colours on the Ticket to Ride map: train-card colours as printed, and one colour per seat for what a
// player owns (claimed routes, stations, chips), shared by the board and the panels.

import { TtrColor } from "@tabletop/client/browser";

/** The fill of a card or route colour. */
export const CARD_COLORS: Record<number, string> = {
  [TtrColor.PURPLE]: "#9b59b6",
  [TtrColor.WHITE]: "#f4f4f4",
  [TtrColor.BLUE]: "#2f6fd6",
  [TtrColor.YELLOW]: "#f1c40f",
  [TtrColor.ORANGE]: "#e67e22",
  [TtrColor.BLACK]: "#2b2b2b",
  [TtrColor.RED]: "#d0312d",
  [TtrColor.GREEN]: "#2e9e4f",
  [TtrColor.LOCOMOTIVE]: "url(#locomotive)",
  [TtrColor.GRAY]: "#a0a0a0",
};

/** The colour of seat i's trains and stations (the board game's five). */
export const SEAT_COLORS = ["#e63946", "#1d70d6", "#2a9d3f", "#f4c20d", "#222222"];
