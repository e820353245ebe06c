#!/bin/sh
# Entry point under Lambda Web Adapter (response streaming): uvicorn serves the app on $PORT.
exec python -m uvicorn --factory groundwork.api.app:create_app --host 127.0.0.1 --port "${PORT:-8000}"
