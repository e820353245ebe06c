"""The entities every port speaks in."""
