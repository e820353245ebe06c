"""Who is asking: API keys (stored hashed) mapped to users."""
