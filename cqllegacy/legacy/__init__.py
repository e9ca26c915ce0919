"""The legacy (CQL 3.x) language: reader, tree and canonical printer."""

from cqllegacy.legacy.errors import LegacySyntaxError
from cqllegacy.legacy.grammar import read_script
from cqllegacy.legacy.printer import print_script

__all__ = ["LegacySyntaxError", "print_script", "read_script"]
