"""The HTTP surface: one FastAPI app for every route."""
