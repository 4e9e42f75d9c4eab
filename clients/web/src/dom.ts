// A tiny element builder: the page is plain DOM rebuilt from each view, with no framework to learn or
// ship. Attributes are set as given (data-* keys are what the browser tests read); functions become
// listeners ("onclick"), and null/false children are skipped.

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

const SVG = "http://www.w3.org/2000/svg";

/** An HTML element. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element (the Ticket to Ride map). */
export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  return fill(document.createElementNS(SVG, tag), attrs, children);
}

// Helpers

function fill<E extends Element>(element: E, attrs: Attrs, children: Child[]): E {
  for (const [key, value] of Object.entries(attrs)) {
    if (typeof value === "function") {
      element.addEventListener(key.replace(/^on/, ""), value);
    } else if (value === true) {
      element.setAttribute(key, "");
    } else if (value !== false && value !== null && value !== undefined) {
      element.setAttribute(key, String(value));
    }
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) {
      element.append(typeof child === "number" ? String(child) : child);
    }
  }
  return element;
}
