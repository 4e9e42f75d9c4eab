// The API explorer: Swagger UI (swagger-ui-dist, served from this server, no CDN) on the server's own
// /openapi.json. "Try it out" calls this same origin, so no CORS setting is needed.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
  validatorUrl: null,
});
