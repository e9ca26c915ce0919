"""CQL 6.1 text → core :class:`~cqllegacy.core.tree.Query`: a tokenizer and a
precedence-climbing (Pratt) parser.

The reader accepts the subset of CQL 6.1 (semantics: S-modern-syntax) that
:mod:`cqllegacy.modern.printer` writes, in whatever layout a person writes it, with the
CQL 6.1 precedence table:
``or`` < ``and`` < ``not`` < ``in`` < relations (right-associative chains) < ``#`` <
``+ -`` < ``power`` < ``|`` < ``&`` < ``~`` < ``attacks``/``attackedby`` < ``move``
parameters < directions < ``:``.  Unary minus takes a ``|``-level argument, as chessql
does (the 6.1 table puts it below ``#``; the printer always parenthesises around it).
Prefix forms (transforms, ``find``, ``not``, ``#``, ``-``, ``power``, ``~``,
directions, ``line``, ``piece``, ``square``) may stand wherever an operand may and take
as their argument everything that binds tighter than themselves, so
``4 == flip count [Rr]a1`` reads as ``4 == (flip count [Rr]a1)``.

Comparisons with an integer literal on the right, ``X == n``, ``X >= n``, ``X <= n``,
and the chain ``a <= X <= b`` read as :class:`~cqllegacy.core.tree.InRange`; every other
comparison is a :class:`~cqllegacy.core.tree.Compare` (a parenthesised number is not a
literal: ``X == (5)`` is a ``Compare``).  A ``//`` comment that stands where a filter
of a ``{ }`` or of the body could start becomes a :class:`~cqllegacy.core.tree.Comment`
there, trailing when code (a filter, the ``{`` or the header) stands before it on its
line; other comments are white space.  ``// cqllegacy: …`` pragmas are read as
:class:`~cqllegacy.modern.encoding.Pragma` items, and
:func:`~cqllegacy.modern.encoding.decode` makes the query of the header and the items.

The reader is one pass over the text: a name is a variable exactly where a ``piece``,
``square`` or ``echo`` around it binds it (comments and strings are never names), and
each filter's operands are kind-checked as it is built, so every message points at the
place it is about.  Time is linear in the script's length.

>>> query = read_query("cql(input in.pgn)\\nflipcolor flip shift {Nd4 kf3}\\n")
>>> query.header.inputs, type(query.lists[0].body).__name__
(('in.pgn',), 'Transform')
>>> read_query("cql() 2 < P <= 5").lists[0].body
Compare(op=<CompareOp.LT: '<'>, left=Number(value=2), right=InRange(value=PieceSet(types=1, \
squares=18446744073709551615), lo=None, hi=5))
"""

from __future__ import annotations

import cqllegacy.modern.forms as forms
from cqllegacy.core import tree as ct
from cqllegacy.errors import SourceText, refuse_too_many_words
from cqllegacy.modern.encoding import EncodingError, decode
from cqllegacy.modern.errors import ModernSyntaxError
from cqllegacy.modern.reader import MAX_DEPTH, Form, Infix, Parser, ReadError, Tables
from cqllegacy.modern.vocabulary import (
    AND,
    ARITH,
    ATTACK,
    BARE_WORDS,
    COLON,
    COMPLEMENT,
    COUNT,
    IN,
    INTERSECTION,
    OR,
    RELATION,
    TRANSFORM_WORDS,
    UNION,
)
from cqllegacy.recursion import room_for_deep_trees
from cqllegacy.vocab.pieces import ANYTHING
from cqllegacy.vocab.squares import EMPTY, FULL

# --------------------------------------------------------------------------------------
# The tables: which word or symbol starts which form, and the binary operators
# --------------------------------------------------------------------------------------

_WRITTEN_WORDS: dict[str, Form] = {
    "line": forms.read_line,
    "find": forms.read_find,
    **dict.fromkeys(TRANSFORM_WORDS, forms.read_transform),
    "echo": forms.read_echo,
    "ray": forms.read_ray,
    "xray": forms.read_xray,
    "move": forms.read_move,
    "result": forms.read_result,
    "player": forms.read_player,
    "event": forms.read_tag,
    "site": forms.read_tag,
    "lowercase": forms.read_lowercase,
    "tag": forms.read_named_tag,
    "elo": forms.read_elo,
    **dict.fromkeys(forms.CASTLING, forms.castling_alone),
}

#: The classes a form written here reads (words, symbols, operators, tokens): every
#: other class CQL 6.1 can say declares its syntax (``SYNTAX``), and its form is derived.
READ_BY_HAND: frozenset[type[ct.Filter]] = frozenset(
    (
        *(ct.PieceSet, ct.Union, ct.Intersection, ct.Complement, ct.Attacks, ct.AttackedBy),
        *(ct.DirectionSet, ct.Ray, ct.XRay, ct.Move, ct.PieceVariable, ct.SquareVariable),
        *(ct.InSet, ct.Number, ct.Count, ct.Arith, ct.Negate, ct.Elo, ct.InRange, ct.Compare),
        *(ct.Compound, ct.And, ct.Or, ct.Result, ct.Player, ct.TagContains, ct.TagSearch),
        ct.Comment,
        *(ct.Line, ct.LineGroup, ct.Find, ct.Transform, ct.Echo, ct.PositionVariable),
        *(ct.AtPosition, ct.PositionIntersection),
    )
)


def check_syntax(classes: tuple[type[ct.Filter], ...]) -> None:
    """Each class of ``classes`` that CQL 6.1 can say is read one way: by a form written
    here (:data:`READ_BY_HAND`), or by one derived from its declaration (a bare word, or
    ``SYNTAX`` a :class:`~cqllegacy.core.tree.Prefix`, ``Arguments``, ``Loop``), never
    both; a class CQL 6.1 cannot say (``MODERN = False``) is read by none.

    >>> newcomer = type("Newcomer", (), {"MODERN": True, "SYNTAX": ct.Syntax.OWN})
    >>> check_syntax((newcomer,))
    Traceback (most recent call last):
    ...
    cqllegacy.core.declarations.DeclarationError: the CQL 6.1 reader has no form for Newcomer: \
declare its SYNTAX, or write its form and list it in READ_BY_HAND
    """
    for cls in classes:
        derived = cls.SYNTAX is not ct.Syntax.OWN
        by_hand = cls in READ_BY_HAND
        if not cls.MODERN and (derived or by_hand):
            raise ct.DeclarationError(f"{cls.__name__} is legacy-only: CQL 6.1 reads no form")
        if cls.MODERN and derived and by_hand:
            raise ct.DeclarationError(f"{cls.__name__} has a derived and a written form")
        if cls.MODERN and not derived and not by_hand:
            raise ct.DeclarationError(
                f"the CQL 6.1 reader has no form for {cls.__name__}: declare its SYNTAX, or"
                " write its form and list it in READ_BY_HAND"
            )


def _with_derived_words(written: dict[str, Form]) -> dict[str, Form]:
    """The written forms, each bare word alone as one node, and the form each class that
    declares its ``SYNTAX`` derives from it (a word with two forms is a declaration error,
    not a choice)."""
    check_syntax(ct.node_classes())
    derived: dict[str, Form] = {word: forms.leaf(node) for word, node in BARE_WORDS.items()}
    for cls in ct.node_classes():
        if isinstance(cls.SYNTAX, ct.Prefix | ct.Arguments | ct.Loop):
            form = forms.derived(cls)
            for word in ct.derived_shape(cls).words:
                if word in derived:
                    raise ct.DeclarationError(f"the word {word!r} starts two derived forms")
                derived[word] = form
    both = sorted(set(written) & set(derived))
    if both:
        raise ct.DeclarationError(f"words with a derived and a written form: {both}")
    return {**written, **derived}


_PREFIX_WORDS = _with_derived_words(_WRITTEN_WORDS)

_PREFIX_SYMBOLS: dict[str, Form] = {
    "(": Parser.paren,
    "{": Parser.compound,
    "-": Parser.minus,
    "#": forms.unary(ct.Count, COUNT),
    "~": forms.unary(ct.Complement, COMPLEMENT),
    "[]": forms.leaf(ct.PieceSet(ANYTHING, EMPTY)),
    ".": forms.leaf(ct.PieceSet(ANYTHING, FULL)),
}


def _operators() -> dict[str, Infix]:
    attack = Infix(ATTACK, forms.fold_left(forms.attack))
    arith = Infix(ARITH, forms.fold_left(forms.arith))
    relation = Infix(RELATION, forms.combine_relations)
    return {
        "attacks": attack,
        "attackedby": attack,
        ":": Infix(COLON, forms.combine_colon),
        "&": Infix(INTERSECTION, forms.combine_intersection),
        "|": Infix(UNION, forms.flat(ct.Union)),
        "+": arith,
        "-": arith,
        **dict.fromkeys(("<=", ">=", "==", "!=", "<", ">"), relation),
        "in": Infix(IN, forms.combine_in, once=True),
        "and": Infix(AND, forms.flat(ct.And)),
        "or": Infix(OR, forms.flat(ct.Or)),
    }


#: Everything the parser reads by.
TABLES = Tables(_PREFIX_WORDS, _PREFIX_SYMBOLS, _operators())


# --------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------


def _depth_exceeds(query: ct.Query, limit: int) -> bool:
    """Is some filter of ``query`` more than ``limit`` levels below its list's top?"""
    stack = [(top.body, 0) for top in query.lists]
    while stack:
        node, depth = stack.pop()
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in node.children())
    return False


def read_query(text: str, path: str | None = None) -> ct.Query:
    """Read a CQL 6.1 script; raises :class:`ModernSyntaxError` with a located message.

    >>> from cqllegacy.vocab.pieces import MODERN_LETTERS
    >>> read_query("cql() Ka1 kh8").lists[0].body == ct.Compound(
    ...     (ct.PieceSet(MODERN_LETTERS["K"], 1), ct.PieceSet(MODERN_LETTERS["k"], 1 << 63)))
    True
    """
    refuse_too_many_words(text, path, r"//[^\n]*|/\*.*?\*/", ModernSyntaxError)
    source = SourceText(text, path)
    parser = Parser(text, TABLES)
    try:
        # The parser recurses a few frames per nesting level; MAX_NESTING and MAX_DEPTH
        # bound it.
        with room_for_deep_trees():
            encoded = parser.script()
        query = decode(encoded)
    except ReadError as exc:
        raise source.error(
            ModernSyntaxError, exc.message, max(exc.loc, 0), exc.text, exc.expected, exc.hint
        ) from None
    except EncodingError as exc:
        place = len(text.rstrip()) if exc.place is None else exc.place
        raise source.error(ModernSyntaxError, exc.message, place) from None
    except RecursionError:
        raise source.error(ModernSyntaxError, "the script nests too deeply to read", 0) from None
    if _depth_exceeds(query, MAX_DEPTH):
        message = f"the script nests filters more than {MAX_DEPTH} deep"
        raise source.error(ModernSyntaxError, message, 0)
    return query
