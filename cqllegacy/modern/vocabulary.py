"""The vocabulary of CQL 6.1 as cqllegacy reads and writes it.

The reader (:mod:`cqllegacy.modern.grammar`) and the printer
(:mod:`cqllegacy.modern.printer`) take their words, token patterns and shared tables from
here, so each fact is stated once; neither imports the other.  The precedence levels are the
core's (:class:`cqllegacy.core.tree.Precedence`, each node class declaring its own), named
here for the reader's operator table.

>>> is_variable_name("x"), is_variable_name("find"), is_variable_name("Ka1")
(True, False, False)
>>> sorted(SUPPORTED_WORDS - RESERVED_WORDS)
[]
>>> OR < AND < NOT < IN < RELATION < COUNT < ARITH < UNION < INTERSECTION < ATTACK
True
"""

from __future__ import annotations

import re
from types import MappingProxyType

from cqllegacy.core import tree as ct
from cqllegacy.vocab.pieces import TypeSet, types_of
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.squares import Direction

__all__ = [
    "AND",
    "ARITH",
    "ATOM",
    "ATTACK",
    "BARE_WORDS",
    "BLACK_PAWN",
    "BLOCK_COMMENT_PATTERN",
    "COLON",
    "COMPLEMENT",
    "COUNT",
    "DESIGNATOR_PATTERN",
    "DIRECTION",
    "DIRECTION_WORDS",
    "FILE_NAME_PATTERN",
    "HEADER_WORDS",
    "IN",
    "INTERSECTION",
    "LINE",
    "LINE_COMMENT_PATTERN",
    "MOVE",
    "NAME_PATTERN",
    "NOT",
    "NUMERIC_WORDS",
    "OR",
    "POWER",
    "PRAGMA_LISTS",
    "PRAGMA_MARK",
    "PRAGMA_PREFIX",
    "PROMOTABLE",
    "RANGE_OPS",
    "RELATION",
    "REPETITIONS",
    "REPETITION_PATTERN",
    "RESERVED_WORDS",
    "RESULT_PATTERN",
    "SIMPLE_WORDS",
    "SQUARES_PATTERN",
    "STRING_PATTERN",
    "SUPPORTED_WORDS",
    "TRANSFORM",
    "TRANSFORM_WORDS",
    "TYPE_PATTERN",
    "UNARY",
    "UNION",
    "UNSUPPORTED_WORDS",
    "WHITE_PAWN",
    "implicit_search_ok",
    "is_pragma_text",
    "is_variable_name",
]

# --------------------------------------------------------------------------------------
# Pragmas: `// cqllegacy: …` comments (see cqllegacy.modern.printer)
# --------------------------------------------------------------------------------------

PRAGMA_PREFIX = "cqllegacy:"
PRAGMA_LISTS = "lists"
PRAGMA_MARK = "mark"


def is_pragma_text(text: str) -> bool:
    """True for comment text the reader takes as a ``cqllegacy:`` pragma."""
    return text.strip().startswith(PRAGMA_PREFIX)


# --------------------------------------------------------------------------------------
# Words
# --------------------------------------------------------------------------------------

#: Words that may not name a piece variable: CQL 6.1 keywords and parameters.
# fmt: off
RESERVED_WORDS = frozenset(
    (
        "abs", "all", "ancestor", "and", "anydirection", "ascii", "assert", "atomic",
        "attackedby", "attacks", "between", "black", "btm", "capture", "captures", "castle",
        "check",
        "child", "comment", "connectedpawns", "consecutivemoves", "count", "currentposition",
        "cql", "dark", "depth", "descendant", "diagonal", "distance", "doubledpawns", "down",
        "echo", "eco", "elo", "else", "enpassant", "enpassantsquare", "event", "false", "fen",
        "file",
        "find", "firstmatch", "flip", "flipcolor", "fliphorizontal", "flipvertical", "from",
        "function", "gamenumber", "hascomment", "horizontal", "if", "in", "initial", "input",
        "int", "isolatedpawns", "lastposition", "left", "legal", "light", "line", "loop",
        "lowercase", "maindiagonal", "mainline", "makesquare", "mate", "matchcount",
        "matchstring", "max", "message", "min", "modelmate", "move", "movenumber", "nestban",
        "northeast", "northwest", "not", "null", "o-o", "o-o-o", "offdiagonal", "or",
        "orthogonal", "output", "passedpawns", "persistent", "piece", "pieceid", "pin",
        "player", "ply", "position", "positionid", "power", "previous", "primary", "promote",
        "pseudolegal", "pure", "quiet", "rank", "ray", "result", "reversecolor", "right",
        "rotate45", "rotate90", "secondary", "shift", "shifthorizontal", "shiftvertical",
        "sidetomove", "silent", "singlecolor", "site", "sort", "southeast", "southwest", "sqrt",
        "square", "stalemate", "str", "tag", "terminal", "then", "through", "to", "true", "type",
        "up",
        "uppercase", "variation", "variations", "vertical", "virtualmainline", "white", "wtm",
        "xray", "year",
    )
)
# fmt: on

TRANSFORM_WORDS = [kind.value for kind in ct.TransformKind]
DIRECTION_WORDS = [d.word for d in Direction]
SIMPLE_WORDS = {k.value: k for k in ct.Keyword}
NUMERIC_WORDS = {k.value: k for k in ct.NumericKeyword}

#: The node each bare word stands for (``passedpawns``, ``sidetomove`` …): the reader's
#: entry and the printer's text of every class declaring ``SYNTAX = Syntax.WORD``.
BARE_WORDS = MappingProxyType(ct.bare_words())

#: Words of the ``cql( … )`` header, which no filter class declares.
HEADER_WORDS = frozenset(("cql", "input", "output", "matchcount", "gamenumber", "variations"))
#: The words of the subset cqllegacy reads (and writes): derived from what each node class
#: declares (``CQL_WORDS``) and the header's.
SUPPORTED_WORDS = HEADER_WORDS.union(*(cls.CQL_WORDS for cls in ct.node_classes()))
#: CQL 6 words the reader knows but does not read (their scripts get a clear message).
UNSUPPORTED_WORDS = RESERVED_WORDS - SUPPORTED_WORDS

# --------------------------------------------------------------------------------------
# Token patterns
# --------------------------------------------------------------------------------------

#: A name (piece variable); the printer writes only ASCII ones.
NAME_PATTERN = r"[A-Za-z_$][\w$]*"
#: The piece-type part of a designator (``K``, ``[Aa]``, ``_``).
TYPE_PATTERN = r"(?:[KQRBNPkqrbnpAa_]|\[[KQRBNPkqrbnpAa_]+\])"
_SQUARE_ITEM = r"[a-h](?:-[a-h])?[1-8](?:-[1-8])?"
#: The square part of a designator (``a1``, ``a-h1-2``, ``[a1,h8]``).
SQUARES_PATTERN = rf"(?:{_SQUARE_ITEM}|\[{_SQUARE_ITEM}(?:,{_SQUARE_ITEM})*\])"
#: A piece designator token (``Ka1``, ``[Aa]``, ``_f1-8``, ``[a1,h8]``).
# Squares first: in `a-h8` the `a` is a file, not the black-piece letter.
DESIGNATOR_PATTERN = rf"(?:{SQUARES_PATTERN}|{TYPE_PATTERN}{SQUARES_PATTERN}?)(?![\w$])"
#: A string: no escapes, no line ends.
STRING_PATTERN = r'"[^"\n]*"'
LINE_COMMENT_PATTERN = r"//[^\n]*"
BLOCK_COMMENT_PATTERN = r"/\*(?:[^*]|\*(?!/))*\*/"
#: The game results ``result`` takes.
RESULT_PATTERN = "|".join(re.escape(result.value) for result in GameResult)
#: A header file name: a string, or anything up to white space or a parenthesis.
FILE_NAME_PATTERN = rf'{STRING_PATTERN}|[^\s()"]+'
#: A repetition after a ``line`` constituent: ``*``, ``+``, ``?``, ``{n}``, ``{m,n}``.
REPETITION_PATTERN = r"\{\s*[*+]\s*\}|\{\s*\d*\s*,\s*\d*\s*\}|\{\s*\d+\s*\}|[*+?]"
#: The repetition shorthands and the (lo, hi) they stand for (hi None: no limit).
REPETITIONS: dict[str, tuple[int, int | None]] = {"*": (0, None), "+": (1, None), "?": (0, 1)}

_NAME_RE = re.compile(NAME_PATTERN + r"\Z")
_DESIGNATOR_RE = re.compile(DESIGNATOR_PATTERN + r"\Z")


def is_variable_name(name: str) -> bool:
    """True if ``name`` can name a CQL piece variable (not a keyword, not a designator).

    >>> [is_variable_name(word) for word in ("x", "K", "find", "b", "a1x")]
    [True, False, False, False, True]
    """
    return (
        bool(_NAME_RE.match(name))
        and name.isascii()
        and name not in RESERVED_WORDS
        and not _DESIGNATOR_RE.match(name)
    )


def implicit_search_ok(text: str) -> bool:
    """True if ``text`` may follow ``player``/``event``/``site`` directly (CQL 6.1 rule).

    ``+ * ?`` may not appear after the first character and ``[`` not before a ``]``.

    >>> implicit_search_ok("Kasparov"), implicit_search_ok("x+y"), implicit_search_ok("+x")
    (True, False, True)
    """
    if any(ch in text[1:] for ch in "+*?"):
        return False
    bracket = text.find("[")
    return bracket < 0 or "]" not in text[bracket + 1 :]


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------

#: Pieces a pawn may promote to, both colours.
PROMOTABLE: TypeSet = types_of("QRBNqrbn")
WHITE_PAWN: TypeSet = types_of("P")
BLACK_PAWN: TypeSet = types_of("p")

#: ``X == n``, ``X >= n`` and ``X <= n`` with an integer literal n are ranges.
RANGE_OPS = frozenset((ct.CompareOp.EQ, ct.CompareOp.GE, ct.CompareOp.LE))

# --------------------------------------------------------------------------------------
# Precedence levels (higher binds tighter): the core's, where each node class declares the
# level of its form (``PRECEDENCE``); the reader's operator table names them here
# --------------------------------------------------------------------------------------

_P = ct.Precedence
LINE, TRANSFORM, OR, AND, NOT, IN = _P.LINE, _P.TRANSFORM, _P.OR, _P.AND, _P.NOT, _P.IN
RELATION, UNARY, COUNT, ARITH, POWER = _P.RELATION, _P.UNARY, _P.COUNT, _P.ARITH, _P.POWER
UNION, INTERSECTION, COMPLEMENT, ATTACK = _P.UNION, _P.INTERSECTION, _P.COMPLEMENT, _P.ATTACK
MOVE, DIRECTION, COLON, ATOM = _P.MOVE, _P.DIRECTION, _P.COLON, _P.ATOM
