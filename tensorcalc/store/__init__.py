"""The disk cache: authenticated entries in a private folder, and expressions as data and back."""
