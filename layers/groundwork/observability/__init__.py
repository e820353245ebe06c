"""Structured logs, EMF metrics and X-Ray traces for the Lambda handlers (Powertools)."""
