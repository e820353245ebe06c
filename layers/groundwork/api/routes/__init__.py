"""One module per group of routes."""
