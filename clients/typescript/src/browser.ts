// The browser entry of the Tabletop client: the same messages, interceptors and
// error decoder as the Node entry (./common.js), with connect-web's fetch-based
// transports instead of HTTP/2 gRPC. Browsers cannot speak gRPC itself (fetch
// exposes no HTTP/2 trailers), so this talks to the server's HTTP port, which
// serves the contract over Connect and gRPC-Web at /tabletop.v1.GameService/<Method>.
// Nothing here imports a Node module: bundle it with esbuild, Vite or webpack.

import { createClient } from "@connectrpc/connect";
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";

import { GameService } from "./gen/tabletop/v1/game_service_pb.js";
import { optionInterceptors } from "./common.js";
import type { TabletopClient, TabletopClientOptions } from "./common.js";

export * from "./common.js";

/** How a browser client reaches the server. */
export interface BrowserClientOptions extends TabletopClientOptions {
  /** "connect" (the default: plain POSTs, readable in the network tab) or "grpc-web". */
  protocol?: "connect" | "grpc-web";
  /** Send protobuf binary instead of JSON (Connect only; gRPC-Web is always binary). */
  useBinaryFormat?: boolean;
}

/**
 * A Connect or gRPC-Web transport to the server's HTTP port (`baseUrl`, for example
 * "https://api.example.com"; the same origin as the REST API). Cross-origin pages need
 * their origin in the server's TABLETOP_CORS_ORIGINS.
 */
export function createBrowserTransport(
  baseUrl: string,
  options: Omit<BrowserClientOptions, "transport"> = {},
): Transport {
  const common = {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    interceptors: optionInterceptors(options),
    ...(options.timeoutMs === undefined ? {} : { defaultTimeoutMs: options.timeoutMs }),
  };
  if (options.protocol === "grpc-web") {
    return createGrpcWebTransport(common);
  }
  return createConnectTransport({ ...common, useBinaryFormat: options.useBinaryFormat ?? false });
}

/**
 * A GameService client for the server's HTTP port, in a browser.
 *
 * Pass a string as the second argument for the common case of a seat's token.
 */
export function createBrowserClient(
  baseUrl: string,
  options: BrowserClientOptions | string = {},
): TabletopClient {
  const opts: BrowserClientOptions = typeof options === "string" ? { token: options } : options;
  const transport = opts.transport ?? createBrowserTransport(baseUrl, opts);
  return createClient(GameService, transport);
}
