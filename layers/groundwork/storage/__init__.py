"""Service state (collections, sources, answers) behind one interface."""
