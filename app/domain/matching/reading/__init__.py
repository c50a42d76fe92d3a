"""Reading log text: normalisation, the one tokenizer, lines and their levels, run context
and the values a line holds. The first room: imports no other room (only the reference
format, `app.config` and `app.errors`)."""
