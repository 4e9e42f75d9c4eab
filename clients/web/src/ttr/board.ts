// The Ticket to Ride: Europe map as SVG, drawn from the catalog (GetRuleset) alone: each city at its
// coordinates, each route as a line of its length in carriages between its two cities, in its colour.
// The two routes of a double route are drawn side by side (shifted apart across their line), tunnels
// with a dark dashed border, ferries with one locomotive mark per locomotive they need. A view, when
// given, adds what is public in play: claimed routes in the owner's colour and built stations.
//
// Every route is a <g data-route data-from data-to> with one <line class="track"> from city to city (the
// shift aside), so a test can check that each route of the reference data is drawn between its cities.

import type { TtrCity, TtrEuropeCatalog, TtrEuropeView, TtrRoute } from "@tabletop/client/browser";
import { svg } from "../dom.js";
import { actionable } from "../actions.js";
import { t } from "../i18n/index.js";
import { CARD_COLORS, SEAT_COLORS } from "./colors.js";

/** A generous width of one character of a city label (the labels' font-size is 10 map units). */
const LABEL_CHAR_WIDTH = 6.5;

/** How far apart the two lines of a double route are drawn (map units). */
export const DOUBLE_ROUTE_GAP = 7;

/** Routes the viewer may claim now, each with its words and what a click does (the board-first play). */
export interface Claims {
  labels: Map<number, string>;
  claim: (routeId: number) => void;
  /** Cities where the viewer may build a station now (by city name), with their words; a click asks how to pay. */
  stations?: Map<string, string>;
  build?: (city: string) => void;
}

/** The map of `catalog`, with the claims and stations of `view` when given; with `claims`, each claimable
 * route is a button (click, Enter or Space) that asks how to pay. */
export function drawBoard(catalog: TtrEuropeCatalog, view?: TtrEuropeView, claims?: Claims): SVGElement {
  const box = catalog.viewBox ?? { minX: 0, minY: 0, width: 1000, height: 700 };
  const cities = new Map(catalog.cities.map((c) => [c.name, c]));
  const routes = catalog.routes.map((route) => {
    const a = cities.get(route.cityA);
    const b = cities.get(route.cityB);
    if (a === undefined || b === undefined) {
      return null;
    }
    const drawn = drawRoute(route, a, b, view?.routeOwners[route.id - 1] ?? -1);
    const label = claims?.labels.get(route.id);
    if (claims !== undefined && label !== undefined) {
      actionable(drawn, label, () => claims.claim(route.id));
      drawn.classList.add("claimable");
      // The track is dashed (one dash a carriage): a wide, invisible line along it takes the clicks that
      // would fall between two carriages (the middle of a two-carriage route is such a gap).
      const track = drawn.querySelector("line.track");
      if (track !== null) {
        const hit = track.cloneNode() as SVGElement;
        hit.setAttribute("class", "hit");
        hit.removeAttribute("stroke-dasharray");
        drawn.append(hit);
      }
    }
    return drawn;
  });
  const stations = (view?.stations ?? []).map((station) => {
    const city = cities.get(station.city);
    return city === undefined ? null : svg("path", { class: "station", "data-station": station.city, "data-owner": station.seat,
      d: `M${city.x - 6} ${city.y + 4}h12v-7l-6-6l-6 6z`, fill: SEAT_COLORS[station.seat] ?? "#888", stroke: "#000" });
  });
  return svg("svg", { class: "board", "data-testid": "board", viewBox: `${box.minX} ${box.minY} ${box.width} ${box.height}`,
    // A group, not an image: its claimable routes and buildable cities are buttons (never nested in an image).
    role: claims === undefined ? "img" : "group", "aria-label": t("ttr.map") },
    svg("defs", {}, svg("linearGradient", { id: "locomotive" },
      ...["#d0312d", "#f1c40f", "#2e9e4f", "#2f6fd6", "#9b59b6"].map((color, i) =>
        svg("stop", { offset: `${i * 25}%`, "stop-color": color })))),
    svg("rect", { class: "sea", x: box.minX, y: box.minY, width: box.width, height: box.height }),
    svg("g", { class: "routes" }, ...routes),
    svg("g", { class: "cities" }, ...catalog.cities.map((city) => drawCity(city, box, claims))),
    svg("g", { class: "stations" }, ...stations));
}

// Helpers

/** A city's dot and label; with `claims` naming it, a button (click, Enter or Space) that builds a station there,
 * asking how to pay. Only the dot and a ring around it take the click, never the label (it may lie over a route). */
function drawCity(city: TtrCity, box: { minX: number; width: number }, claims?: Claims): SVGElement {
  const drawn = svg("g", { "data-city": city.name }, svg("circle", { cx: city.x, cy: city.y, r: 5 }), cityText(city, box));
  const label = claims?.stations?.get(city.name);
  const build = claims?.build;
  if (label !== undefined && build !== undefined) {
    actionable(drawn, label, () => build(city.name));
    drawn.classList.add("buildable");
    drawn.append(svg("circle", { class: "hit", cx: city.x, cy: city.y, r: 9 }));
  }
  return drawn;
}

/** A city's label, up and to the right of its dot; to the left where it would run past the map's right edge
 * (Rostov), so no label is clipped by the viewBox. */
function cityText(city: TtrCity, box: { minX: number; width: number }): SVGElement {
  const right = city.x + 7 + city.label.length * LABEL_CHAR_WIDTH > box.minX + box.width;
  return svg("text", right ? { x: city.x - 7, y: city.y - 5, "text-anchor": "end" } : { x: city.x + 7, y: city.y - 5 },
    city.label);
}

interface Point {
  x: number;
  y: number;
}

function drawRoute(route: TtrRoute, a: Point, b: Point, owner: number): SVGElement {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx, dy) || 1;
  // Double routes: the lower id to one side, its twin to the other; a single route stays on the line.
  const side = route.doubleRouteId === undefined ? 0 : route.id < route.doubleRouteId ? -0.5 : 0.5;
  const nx = (-dy / length) * DOUBLE_ROUTE_GAP * side;
  const ny = (dx / length) * DOUBLE_ROUTE_GAP * side;
  const ends = { x1: a.x + nx, y1: a.y + ny, x2: b.x + nx, y2: b.y + ny };
  const carriage = length / route.length;
  const dashes = `${Math.max(carriage - 3, 1)} 3`;
  const color = CARD_COLORS[route.color] ?? "#888";
  const parts: (SVGElement | null)[] = [
    route.tunnel ? svg("line", { ...ends, class: "tunnel-border", "stroke-dasharray": "3 2" }) : null,
    svg("line", { ...ends, class: "track", stroke: color, "stroke-dasharray": dashes }),
  ];
  for (let i = 0; i < route.ferryLocomotives; i++) {
    const t = (i + 0.5) / route.length;
    parts.push(svg("circle", { class: "ferry-mark", cx: ends.x1 + dx * t, cy: ends.y1 + dy * t, r: 2.5 }));
  }
  if (owner >= 0) {
    parts.push(svg("line", { ...ends, class: "claimed", stroke: SEAT_COLORS[owner] ?? "#888" }));
  }
  return svg("g", { class: "route", "data-route": route.id, "data-from": route.cityA, "data-to": route.cityB,
    "data-color": route.color, "data-tunnel": route.tunnel, "data-ferry": route.ferryLocomotives,
    "data-double": route.doubleRouteId ?? "", "data-owner": owner >= 0 ? owner : "" },
  svg("title", {}, `${route.cityA} – ${route.cityB}: ${route.length}${route.tunnel ? ", tunnel" : ""}` +
    `${route.ferryLocomotives ? `, ferry (${route.ferryLocomotives} locomotive)` : ""}`), ...parts);
}
