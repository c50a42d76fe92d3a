"""Matching log text against references, in rooms named for the steps a paste goes through,
each importing only from the rooms before it (and `results`, the shared result shapes):
`reading` lines and values → the `index` and what it holds per reference → `search`, which
message lines are compared → `scoring`, a reference's score → `judging`, what an answer
says → `messages`, one pasted message → `logs`, the story of a whole log → `authoring`,
what authors see before a reference ships."""
