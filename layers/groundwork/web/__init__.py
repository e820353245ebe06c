"""The reading page served at ``/``: plain HTML, CSS and ES modules over the public API."""
