"""Signs, intervals, definiteness and the one domain check of the rules."""
