"""CQL 6.1 text: the printer (core query → text) and the modern reader (text → core query)."""

from cqllegacy.modern.errors import ModernSyntaxError, NotExpressible
from cqllegacy.modern.grammar import read_query
from cqllegacy.modern.printer import print_query

__all__ = ["ModernSyntaxError", "NotExpressible", "print_query", "read_query"]
