#!/bin/sh
# Entry point under Lambda Web Adapter (response streaming): uvicorn serves the app on $PORT.
# The function's folder is the working directory, so streaming.py imports from it.
exec python -m uvicorn --factory streaming:create_app --host 127.0.0.1 --port "${PORT:-8000}"
