#!/bin/sh
# Entry point under Lambda Web Adapter (response streaming): uvicorn serves the app on $PORT.
# The adapter's /opt/bootstrap execs this script in place of the Python runtime's bootstrap,
# which is what puts the layers on sys.path: without /opt/python here nothing of the layers
# imports (not even uvicorn), and LAMBDA_RUNTIME_DIR is where the runtime keeps boto3.
# The function's folder is the working directory, so streaming.py imports from it.
# No uvicorn access log: the app's RequestTelemetry writes one JSON line per request, whose
# path has no query string (a key put in a URL is not logged).
PYTHONPATH="/opt/python:${LAMBDA_RUNTIME_DIR}${PYTHONPATH:+:$PYTHONPATH}" \
  exec python -m uvicorn --factory streaming:create_app --host 127.0.0.1 --port "${PORT:-8000}" \
  --no-access-log
