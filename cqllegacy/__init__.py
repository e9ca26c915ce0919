"""cqllegacy: run legacy CQL 3.x scripts on PGN files and translate them to CQL 6.1."""

__version__ = "0.1.0"
