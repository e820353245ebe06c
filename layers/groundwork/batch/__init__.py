"""Batch grounding: a JSONL object of check-grounding requests in, result JSONL and a summary out.

An object created in the input bucket is streamed and validated line by line; each good line
becomes one SQS message (a pointer to its bytes), each bad line a failure result at once. A
worker checks one line per message, writes its result, and counts the line done in DynamoDB
(sharded counts, :mod:`groundwork.batch.progress`); whoever counts the last line sends the batch
to the assembly step, which writes ``results.jsonl`` and ``summary.json``.
"""
