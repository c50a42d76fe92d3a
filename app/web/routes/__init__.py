"""Routes: pages, the JSON API, editing, health. Thin: parse, call a service, answer."""
