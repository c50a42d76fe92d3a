// Starts Swagger UI on /docs; kept out of the page so the CSP needs no inline script.
"use strict";
window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  // eslint-disable-next-line no-undef
  SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    dom_id: "#swagger-ui",
    deepLinking: true,
    tryItOutEnabled: true,
  });
});
