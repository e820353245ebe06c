"""Check grounding: split an answer into claims and score each against a set of facts."""
