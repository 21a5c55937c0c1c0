"""Plain, obviously correct references that the fast code must agree with."""
