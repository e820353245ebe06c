"""Batch grounding: a JSONL object of check-grounding requests in, result JSONL and a summary out.

An object created in the input bucket is read and validated line by line; each good line
becomes one SQS message (a pointer to its bytes), each bad line a failure result at once. A
worker checks one line per message, writes its result, and counts the line done in DynamoDB;
whoever counts the last line assembles ``results.jsonl`` and ``summary.json``.
"""
