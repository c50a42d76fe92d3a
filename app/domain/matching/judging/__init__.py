"""What an answer says of a scored reference: confident or not, the gates against it, its
candidate causes, reranking by check outcomes, and the lines nothing matched. Imports from
the rooms before it (`reading` to `scoring`) and `results`; calls no search function."""
