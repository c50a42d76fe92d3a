"""Which message lines one query line is compared with, and comparing them: the bounded
search, its walk, the budgeted search and the one comparison. Imports from `reading` and
`index`; what it needs of scoring is the `bounds.ScoreBounds` protocol, so it never imports
`scoring`."""
