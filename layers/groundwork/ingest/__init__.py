"""Documents in: parsing into sections, cutting into cards, indexing."""
