"""Shared engine: random streams and dice, input checks, the chunked runner, the outcome record."""
