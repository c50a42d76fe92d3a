"""What authors see before a reference ships: the labelled set of real log lines and the
self-check of every message against the index. The last room: may import any room before
it and `results`."""
