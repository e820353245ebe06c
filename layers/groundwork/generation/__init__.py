"""Answer generation behind one interface."""
