"""The ``groundwork`` command."""
