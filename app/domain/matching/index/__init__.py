"""The match index and what it holds per reference: message lines cut into pieces, their
tables and views, what a query's tokens share with each line (`prefilter`), what a run's
context says of each reference (`context_terms`) and its cards' checks. Imports from
`reading` only (and `results`)."""
