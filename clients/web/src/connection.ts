// The connection indicator of a game page: connected, reconnecting with a countdown to the next try, or
// offline (several tries in a row failed; the page keeps trying), and a banner when the watch stream was
// found behind the game. One element for the page's whole life, updated in place (the page around it is
// redrawn at every version; the countdown must not redraw it every second).

import { h } from "./dom.js";
import { t } from "./i18n/index.js";

/** After this many failed tries in a row the page says it is offline (it still retries). */
const OFFLINE_AFTER = 3;
/** The longest wait between tries (ms). */
const MAX_DELAY_MS = 8000;

export type ConnectionState = "online" | "reconnecting" | "offline";

export class Connection {
  readonly element: HTMLElement;
  private readonly label: HTMLElement;
  private readonly banner: HTMLElement;
  private state: ConnectionState = "online";
  private failures = 0;
  private timer: number | undefined;

  constructor() {
    this.label = h("span", { class: "label" });
    this.banner = h("span", { class: "stale", "data-testid": "stale", hidden: true });
    this.element = h("span", { class: "connection", "data-testid": "connection", role: "status", "aria-live": "polite" },
      h("span", { class: "dot", "aria-hidden": "true" }), this.label, this.banner);
    this.show(0);
  }

  isOnline(): boolean {
    return this.state === "online";
  }

  /** A call got through. */
  online(): void {
    this.failures = 0;
    this.state = "online";
    this.show(0);
  }

  /** A call could not reach the server. */
  failed(): void {
    this.failures += 1;
    this.state = this.failures >= OFFLINE_AFTER ? "offline" : "reconnecting";
    this.show(this.delay());
  }

  /** The stream was found behind the game (shown until the next check finds it current). */
  stale(behind: boolean): void {
    this.banner.hidden = !behind;
    this.banner.textContent = behind ? t("conn.stale", { n: STALE_SECONDS }) : "";
  }

  /** Wait before the next try: after a failure the growing delay with its countdown, else a moment. */
  wait(signal: AbortSignal, afterFailure: boolean): Promise<void> {
    const total = afterFailure ? this.delay() : 1000;
    const until = Date.now() + total;
    return new Promise((resolve) => {
      const tick = (): void => {
        const left = until - Date.now();
        if (left <= 0 || signal.aborted) {
          window.clearInterval(this.timer);
          resolve();
          return;
        }
        if (afterFailure) {
          this.show(left);
        }
      };
      window.clearInterval(this.timer);
      this.timer = window.setInterval(tick, 250);
      tick();
    });
  }

  stop(): void {
    window.clearInterval(this.timer);
  }

  // Helpers

  private delay(): number {
    return Math.min(1000 * 2 ** Math.max(this.failures - 1, 0), MAX_DELAY_MS);
  }

  private show(leftMs: number): void {
    this.element.dataset["state"] = this.state;
    const seconds = Math.max(Math.ceil(leftMs / 1000), 1);
    this.label.textContent = this.state === "online" ? t("conn.online")
      : this.state === "offline" ? `${t("conn.offline")} · ${t("conn.reconnecting", { n: seconds })}`
        : t("conn.reconnecting", { n: seconds });
  }
}

/** What the stale banner says about how long the stream has been quiet (the stale check's period). */
const STALE_SECONDS = 5;
