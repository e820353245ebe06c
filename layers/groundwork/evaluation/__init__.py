"""Evaluation of answers against expected ones: ``groundwork eval`` and the benchmarks."""
