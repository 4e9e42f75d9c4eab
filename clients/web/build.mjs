// Builds the web client and the API explorer into rest/web/, the Python package's static files.
//
// The output is committed (like the generated stubs) so that `pip install` and `tabletop serve` need no
// Node.js; .ci/run rebuilds it and fails on any diff. Everything here is deterministic: esbuild's output
// depends only on the sources and the locked versions, and the hashed file names change only with it.
//
//   rest/web/index.html            the single page (no-cache: always revalidated)
//   rest/web/assets/app-<hash>.js  the bundle: src/ and the generated client (@tabletop/client/browser)
//   rest/web/assets/app-<hash>.css
//   rest/web/docs/                 Swagger UI (swagger-ui-dist, Apache-2.0) reading /openapi.json

import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "..", "rest", "web");
const swagger = join(here, "node_modules", "swagger-ui-dist");

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });
mkdirSync(join(out, "docs"), { recursive: true });

const result = await build({
  entryPoints: { app: join(here, "src", "main.ts") },
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  legalComments: "none",
  entryNames: "[name]-[hash]",
  outdir: join(out, "assets"),
  metafile: true,
  // The generated client is used from its sources, so the page and clients/typescript never drift apart.
  alias: { "@tabletop/client": join(here, "..", "typescript", "src") },
  logLevel: "warning",
});

const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
const script = outputs.find((name) => name.endsWith(".js"));
const style = outputs.find((name) => name.endsWith(".css"));
const page = readFileSync(join(here, "index.html"), "utf8")
  .replace("%SCRIPT%", `/assets/${script}`)
  .replace("%STYLE%", `/assets/${style}`);
writeFileSync(join(out, "index.html"), page);

for (const name of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"]) {
  copyFileSync(join(swagger, name), join(out, "docs", name));
}
for (const name of readdirSync(join(here, "docs"))) {
  copyFileSync(join(here, "docs", name), join(out, "docs", name));
}
console.log(`rest/web: ${[...outputs, "index.html", "docs/"].join(", ")}`);
