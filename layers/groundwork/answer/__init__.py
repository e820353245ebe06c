"""The answer pipeline: question → retrieval → generation → citations."""
