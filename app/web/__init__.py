"""The web front end: everything that imports FastAPI, Starlette or Jinja2 (app factory,
dependencies, guards, rate limit, error rendering, middleware, views, routes, templates).
Routes parse input, call one service and return a schema or a template."""
