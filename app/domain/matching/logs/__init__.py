"""The story of a whole log: reading it line by line or a chunk at a time, its GPU ranks,
scanning its templates and telling what happened. Imports from the rooms before it
(`reading` to `messages`) and `results`."""
