"""The product's verbs: one function per thing a page, API call, MCP tool or command does.
Services own transactions and the live catalog snapshot (`Library`); front ends call them
and never reach the store themselves."""
