"""A reference's score for a query: its best line's similarity, lifted by keywords and code
paths and moved by the run's context. Imports from `reading`, `index` and `search`."""
