"""Matching log text against references: normalisation, the one tokenizer, run context, the
index, ranking one message, scanning a whole log, and the self-check authors see."""
