"""The deployed shape, run locally: ``groundwork serve --lambda``.

Every function of a ``sam build`` runs under the Lambda Runtime Interface Emulator with its
layers under ``/opt``, the chat function behind the Lambda Web Adapter, and an API-Gateway-like
router in front. The tools come from ``scripts/lambda_local.sh``; see docs/deploy.md.
"""
