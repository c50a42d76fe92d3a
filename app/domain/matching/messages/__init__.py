"""One pasted message: matching it (the entry the services call) and highlighting where it
matched. Imports from the rooms before it (`reading` to `judging`) and `results`."""
