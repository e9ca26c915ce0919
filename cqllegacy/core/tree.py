"""The shared core: a filter tree shaped after CQL 6.1.

Both paths of the product end here: the translator turns a legacy script into a
:class:`Query`, the modern reader turns CQL 6 text into one, the evaluator runs it
and the printer writes it as CQL 6 text.  Nodes are frozen, slotted ``attrs``
classes; equality is structural, so ``print → read`` round trips can be checked
with ``==`` and orbit members de-duplicated with a ``set``.

Values follow CQL: a *set filter* has a square set (``int`` bitboard) and matches
when it is non-empty; a *numeric filter* has an ``int``; a *logical filter* only
matches or not.  A filter that fails has no value.

A few nodes exist because the legacy language needs them and CQL 6.1 text cannot
say them (:class:`Relation`, :class:`TagDeclaration` users such as
:class:`TaggedPiece`); they carry ``MODERN = False`` and an ``origin`` naming the
legacy construct, so the printer can refuse them with a precise message (T1).

>>> from cqllegacy.vocab.pieces import types_of
>>> knight = PieceSet(types_of("N"), 1 << 27)
>>> flip = Transform(TransformKind.FLIP, Compound((knight,)))
>>> flip == Transform(TransformKind.FLIP, Compound((knight,)))
True
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import ClassVar, TypeVar

import attrs

from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING, TypeSet, types_of
from cqllegacy.vocab.results import GameResult
from cqllegacy.vocab.spans import Span
from cqllegacy.vocab.squares import FULL, Direction, SquareSet


class Reads(enum.IntEnum):
    """How far a node looks, from least to most; a tree looks as far as its farthest node.

    The evaluator chooses how to run a query from this (tags alone, the board python-chess
    is reading, or the whole game tree), so the order matters: ``max`` combines.
    """

    #: Nothing, or the game's tags alone (``result``, ``player``, numbers, ``and`` …).
    TAGS = 0
    #: The current position and the tags.
    POSITION = 1
    #: Also the move played from the current position.
    NEXT_MOVE = 2
    #: Other positions, earlier or later, or pieces followed through the game.  The
    #: default: a node class that declares nothing is evaluated on the full game tree.
    GAME = 3


class Kind(enum.Enum):
    """The kind of value a filter has when it matches (semantics: S-modern-model, S-echo).

    One enum for the whole package: the modern reader checks operands by it, the evaluator
    compiles each node to a value of its kind.  A *position* is the value of an ``echo``
    variable (its number in the game tree, decision M7); only ``:``, positional ``&``,
    comparisons with another position and ``ancestor`` take one.
    """

    SET = "set"
    NUMBER = "numeric"
    LOGICAL = "logical"
    POSITION = "position"


class Transforms(enum.Enum):
    """How a basic transform (flip, shift, colour swap; core.transforms) acts on a node."""

    #: Its sub-filters are rewritten; its own fields are the same in every image.
    CHILDREN = "children"
    #: Nothing in it changes (positions, numbers, tags, comments; decision M9).
    NOTHING = "nothing"
    #: Its own fields change (squares, types, directions, colours): core.transforms has a
    #: rule of its own for it.
    OWN = "own"
    #: It cannot stand under a transform: the rewrite refuses it (core.transforms says why).
    REFUSED = "refused"


class Syntax(enum.Enum):
    """How CQL 6 text writes a node: by a form the modern reader and printer derive from
    the class's declarations, or by one written for it there."""

    #: The reader (modern/grammar.py) and the printer (modern/printer.py) each have a form
    #: written for it.
    OWN = "own"
    #: A bare word: each of its ``CQL_WORDS`` alone is one node (:func:`bare_words`): the
    #: class has no field, and one word, or one enum field whose values are its words.
    #: The reader's entry and the printer's text are derived; neither file names it.
    WORD = "word"


#: The kinds an operand may have (``OPERANDS``).
SETS: frozenset[Kind] = frozenset({Kind.SET})
#: A number, or a set standing for its size.
NUMERIC: frozenset[Kind] = frozenset({Kind.NUMBER, Kind.SET})
#: Any filter but a position.
ANY_FILTER: frozenset[Kind] = frozenset({Kind.SET, Kind.NUMBER, Kind.LOGICAL})
POSITIONS: frozenset[Kind] = frozenset({Kind.POSITION})
#: A leaf: no operand at all (a child found under it is a declaration error).
NO_OPERANDS: frozenset[Kind] = frozenset()


def by_field(**kinds: frozenset[Kind]) -> Mapping[str, frozenset[Kind]]:
    """``OPERANDS`` for a node whose operands need different kinds, by field name."""
    return MappingProxyType(kinds)


#: What every node class declares in its own body (not inherited): see :class:`Filter`.
DECLARED_FACTS = ("WORD", "CQL_WORDS", "KIND", "OPERANDS", "TRANSFORMS", "READS")

#: Every node class, by (module, name), in the order they were defined.
_NODE_CLASSES: dict[tuple[str, str], type[Filter]] = {}


class DeclarationError(TypeError):
    """A node class leaves out one of the facts every construct declares."""


def node_classes(module: str | None = __name__) -> tuple[type[Filter], ...]:
    """Every node class defined in ``module`` (the core's, by default; None: every one),
    in definition order: the one list the tables and the tests are derived from.

    >>> [cls.__name__ for cls in node_classes()][:3]
    ['PieceSet', 'Union', 'Intersection']
    """
    return tuple(
        cls for (where, _), cls in _NODE_CLASSES.items() if module is None or where == module
    )


def bare_words(classes: tuple[type[Filter], ...] | None = None) -> dict[str, Filter]:
    """The node each bare word stands for: every word of every ``Syntax.WORD`` class of
    ``classes`` (by default every core node class).  The modern reader's entries and the
    printer's text for these classes are this table and its inverse.

    A ``Syntax.WORD`` class whose shape does not say how a word makes a node (more than
    one field, a field that is not an enum of exactly its words) is a
    :class:`DeclarationError` here, when the reader and the printer load.

    >>> bare_words()["passedpawns"]
    PawnStructure(feature=<PawnFeature.PASSED: 'passedpawns'>)
    """
    table: dict[str, Filter] = {}
    for cls in node_classes() if classes is None else classes:
        if cls.SYNTAX is Syntax.WORD:
            for word, node in _words_of(cls).items():
                if word in table:
                    raise DeclarationError(f"the bare word {word!r} names two nodes")
                table[word] = node
    return table


def _words_of(cls: type[Filter]) -> dict[str, Filter]:
    fields = [name for name, _ in _node_fields(cls).init if name != "origin"]
    words = set(cls.CQL_WORDS)
    if not fields and len(words) == 1:
        return {cls.CQL_WORDS[0]: cls()}
    if len(fields) == 1:
        choices = typing.get_type_hints(cls).get(fields[0])
        if isinstance(choices, type) and issubclass(choices, enum.Enum):
            made: dict[str, Filter] = {m.value: cls(m) for m in choices}  # type: ignore[call-arg]
            if set(made) == words:
                return made
    raise DeclarationError(
        f"node class {cls.__name__} declares SYNTAX = Syntax.WORD but is not a bare word:"
        " no field and one word, or one enum field whose values are its CQL_WORDS"
    )


class Filter:
    """Base of every core node, and the tree API every node shares.

    **A construct is one declaration.**  Each node class states in its own body:

    - ``WORD``: how CQL names it in a message (its word or operator, e.g. ``"`between`"``);
      :meth:`word` may refine it from a field.
    - ``CQL_WORDS``: the CQL 6.1 words its text uses (the reader's word list is derived
      from them; ``()`` for a node written with operators or designators only).
    - ``KIND``: the :class:`Kind` of its value, or None when a field decides: then the
      class defines :meth:`kind` itself.
    - ``OPERANDS``: the kinds its operands may have: one frozenset for every child, or a
      mapping from field name to kinds; :meth:`operand_kinds` may refine it.
    - ``TRANSFORMS``: how a basic transform acts on it (:class:`Transforms`).
    - ``READS``: how far the node itself looks (its children add theirs, :meth:`reads`).

    ``MODERN`` (False for nodes CQL 6.1 cannot express) defaults to True; ``SYNTAX``
    (:class:`Syntax`) defaults to ``OWN``: a form written in the reader and the printer.  A
    class that leaves a fact out is refused when it is created (:class:`DeclarationError`); the
    tables other layers keep (kinds, words, transform rules, the reference-rule list) are
    derived from these declarations through :func:`node_classes`.

    >>> from cqllegacy.vocab.pieces import types_of
    >>> tree = Not(Count(PieceSet(types_of("Q"))))
    >>> [type(n).__name__ for n in tree.walk()]
    ['Not', 'Count', 'PieceSet']
    >>> tree.reads() is Reads.POSITION
    True
    >>> tree.transform(lambda n: Number(3) if isinstance(n, Count) else n)
    Not(arg=Number(value=3))
    >>> tree.value_kind(), tree.arg.value_kind(), tree.arg.word()
    (<Kind.LOGICAL: 'logical'>, <Kind.NUMBER: 'numeric'>, '`#`')
    """

    __slots__ = ()
    MODERN: ClassVar[bool] = True
    SYNTAX: ClassVar[Syntax] = Syntax.OWN
    WORD: ClassVar[str]
    CQL_WORDS: ClassVar[tuple[str, ...]]
    KIND: ClassVar[Kind | None]
    OPERANDS: ClassVar[frozenset[Kind] | Mapping[str, frozenset[Kind]]]
    TRANSFORMS: ClassVar[Transforms]
    READS: ClassVar[Reads] = Reads.GAME

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        missing = [fact for fact in DECLARED_FACTS if fact not in vars(cls)]
        if missing:
            raise DeclarationError(
                f"node class {cls.__name__} does not declare {', '.join(missing)}"
                " (a construct is one declaration: see cqllegacy.core.tree.Filter)"
            )
        if cls.KIND is None and "value_kind" not in vars(cls):
            raise DeclarationError(
                f"node class {cls.__name__} declares KIND = None but defines no value_kind()"
            )
        operands = cls.OPERANDS
        if not isinstance(operands, frozenset):
            unknown = set(operands) - set(vars(cls).get("__annotations__", {}))
            if unknown:
                raise DeclarationError(
                    f"node class {cls.__name__}: OPERANDS names no field {sorted(unknown)}"
                )
        # attrs' slotted classes are created twice: the second one replaces the first.
        _NODE_CLASSES[(cls.__module__, cls.__qualname__)] = cls

    def value_kind(self) -> Kind:
        """The kind of value this node has when it matches (``KIND`` unless a field
        decides)."""
        kind = self.KIND
        assert kind is not None  # a class declaring None defines value_kind() (checked)
        return kind

    def word(self) -> str:
        """How a message names this node: its CQL word or operator."""
        return self.WORD

    def operand_kinds(self) -> Iterator[tuple[Filter, frozenset[Kind]]]:
        """Each operand (child) of this node with the kinds it may have."""
        declared = self.OPERANDS
        if isinstance(declared, frozenset):
            for child in self.children():
                yield child, declared
            return
        for name, kinds in declared.items():
            value = getattr(self, name)
            if isinstance(value, Filter):
                yield value, kinds

    # ----------------------------------------------------------------------------------
    # The tree's algebra
    # ----------------------------------------------------------------------------------

    def conjuncts(self) -> tuple[Filter, ...]:
        """The filters that must all match wherever this node matches: the items of
        ``{ }`` and ``and`` (nested ones flattened, comments left out, a legacy-only
        wrapper opened), or the node itself.

        >>> from cqllegacy.vocab.pieces import types_of
        >>> k, q = PieceSet(types_of("K")), PieceSet(types_of("Q"))
        >>> Compound((k, Comment("x"), And((q, Not(k))))).conjuncts() == (k, q, Not(k))
        True
        """
        return _flattened(self, _opens_conjunction)

    def disjuncts(self) -> tuple[Filter, ...]:
        """The filters one of which must match for this node to match: the items of
        ``or`` and ``|`` (nested ones flattened, comments left out, a legacy-only wrapper
        or a one-filter ``{ }`` opened), or the node itself.  Transform orbits are left
        closed (core.transforms expands them).

        >>> from cqllegacy.vocab.pieces import types_of
        >>> k, q, r = (PieceSet(types_of(t)) for t in "KQR")
        >>> Or((k, Compound((Union((q, r)),)))).disjuncts() == (k, q, r)
        True
        """
        return _flattened(self, _opens_disjunction)

    def designators(self) -> tuple[PieceSet, ...]:
        """The piece designators among :meth:`conjuncts`: each must find a square
        wherever this node matches."""
        return tuple(part for part in self.conjuncts() if isinstance(part, PieceSet))

    def sum_terms(self, *, regroup: bool = True) -> tuple[Filter, ...]:
        """The terms of the n-ary sum this node is: ``a + b + …`` read as one sum, in
        order, or the node itself when it is no sum.

        ``regroup`` (the default) reads sums on either side, ``a + (b + c)`` included, as
        one sum (addition associates); ``regroup=False`` opens only the left-associated
        chain CQL text writes without parentheses.  No recursion: an accumulated legacy
        list may be a sum of thousands of terms.

        >>> a, b, c = Number(1), Number(2), Number(3)
        >>> Arith(ArithOp.ADD, a, Arith(ArithOp.ADD, b, c)).sum_terms() == (a, b, c)
        True
        >>> len(Arith(ArithOp.ADD, a, Arith(ArithOp.ADD, b, c)).sum_terms(regroup=False))
        2
        """
        if not regroup:
            chain: list[Filter] = []
            node: Filter = self
            while isinstance(node, Arith) and node.op is ArithOp.ADD:
                chain.append(node.right)
                node = node.left
            chain.append(node)
            return tuple(reversed(chain))
        terms: list[Filter] = []
        pending: list[Filter] = [self]
        while pending:
            item = pending.pop()
            if isinstance(item, Arith) and item.op is ArithOp.ADD:
                pending += (item.right, item.left)
            else:
                terms.append(item)
        return tuple(terms)

    def reads_itself(self) -> Reads:
        """How far this node looks, its children aside (``READS`` unless a field decides)."""
        return self.READS

    def reads(self) -> Reads:
        """How far this node and everything below it look."""
        return max(node.reads_itself() for node in self.walk())

    def children(self) -> tuple[Filter, ...]:
        """The filters directly below this node, in field order."""
        found: list[Filter] = []
        for name in _node_fields(type(self)).names:
            value = getattr(self, name)
            if isinstance(value, Filter):
                found.append(value)
            elif isinstance(value, tuple):
                found.extend(_filters_in(value))
        return tuple(found)

    def walk(self) -> Iterator[Filter]:
        """This node and every node below it, depth first, parents before children."""
        stack: list[Filter] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children()))

    def find_all(self, *types: type[Filter]) -> Iterator[Filter]:
        """The nodes of ``walk`` that are instances of ``types``."""
        return (node for node in self.walk() if isinstance(node, types))

    def find(self, *types: type[Filter]) -> Filter | None:
        """The first node of ``walk`` that is an instance of ``types``, or None."""
        return next(self.find_all(*types), None)

    def replace(self: _F, **changes: object) -> _F:
        """This node rebuilt field by field with ``changes`` (fields named as attributes)."""
        fields = _node_fields(type(self))
        values = {alias: getattr(self, name) for name, alias in fields.init}
        values.update({fields.alias_of[name]: value for name, value in changes.items()})
        return type(self)(**values)

    def map_children(self: _F, fn: Callable[[Filter], Filter]) -> _F:
        """This node with every child replaced by ``fn(child)`` (itself when none changes)."""
        changes: dict[str, object] = {}
        for name in _node_fields(type(self)).names:
            value = getattr(self, name)
            if isinstance(value, Filter):
                new: object = fn(value)
            elif isinstance(value, tuple):
                new = _map_tuple(value, fn)
            else:
                continue
            if new is not value:
                changes[name] = new
        return self.replace(**changes) if changes else self

    def transform(self, fn: Callable[[Filter], Filter]) -> Filter:
        """The tree rebuilt bottom up: ``fn`` sees each node with its children already
        transformed, and returns its replacement."""
        return fn(self.map_children(lambda child: child.transform(fn)))


_F = TypeVar("_F", bound=Filter)


def _opens_conjunction(node: Filter) -> tuple[Filter, ...] | None:
    if isinstance(node, Compound | And):
        return node.items
    if isinstance(node, LegacyOnly):
        return (node.filter,)
    return None


def _opens_disjunction(node: Filter) -> tuple[Filter, ...] | None:
    if isinstance(node, Or | Union):
        return node.items
    if isinstance(node, LegacyOnly):
        return (node.filter,)
    if isinstance(node, Compound):
        items = [item for item in node.items if not isinstance(item, Comment)]
        return tuple(items) if len(items) == 1 else None
    return None


def _flattened(
    node: Filter, opens: Callable[[Filter], tuple[Filter, ...] | None]
) -> tuple[Filter, ...]:
    """The leaves of ``node`` under the nodes ``opens`` opens, in order, comments left
    out (a comment kept at its place, T3, changes nothing); without recursion."""
    found: list[Filter] = []
    pending = [node]
    while pending:
        current = pending.pop()
        inside = opens(current)
        if inside is None:
            found.append(current)
        else:
            pending.extend(reversed([i for i in inside if not isinstance(i, Comment)]))
    return tuple(found)


@attrs.frozen
class _NodeFields:
    #: Every field that can hold a filter (a filter, or a tuple of filters or line steps).
    names: tuple[str, ...]
    #: (attribute, ``__init__`` parameter) of every field ``__init__`` takes.
    init: tuple[tuple[str, str], ...]
    alias_of: dict[str, str]


#: What :func:`_node_fields` found, by node class.
_NODE_FIELDS: dict[type[Filter], _NodeFields] = {}


def _node_fields(cls: type[Filter]) -> _NodeFields:
    # A dict rather than functools.cache: mypy does not take a class for Hashable.
    found = _NODE_FIELDS.get(cls)
    if found is None:
        found = _NODE_FIELDS[cls] = _read_node_fields(cls)
    return found


def _read_node_fields(cls: type[Filter]) -> _NodeFields:
    if not attrs.has(cls):
        raise attrs.exceptions.NotAnAttrsClassError(f"{cls!r} is not an attrs-decorated class.")
    fields = attrs.fields(cls)
    init = tuple((f.name, f.alias or f.name) for f in fields if f.init)
    return _NodeFields(
        names=tuple(f.name for f in fields if f.name != "origin"),
        init=init,
        alias_of=dict(init),
    )


def _filters_in(values: tuple[object, ...]) -> Iterator[Filter]:
    for item in values:
        if isinstance(item, Filter):
            yield item
        elif isinstance(item, LineStep):
            yield item.filter


def _map_tuple(values: tuple[object, ...], fn: Callable[[Filter], Filter]) -> tuple[object, ...]:
    """``values`` with ``fn`` applied to its filters (the same tuple when nothing changed)."""
    out: list[object] = []
    for item in values:
        if isinstance(item, Filter):
            out.append(fn(item))
        elif isinstance(item, LineStep):
            new = fn(item.filter)
            out.append(item if new is item.filter else attrs.evolve(item, filter=new))
        else:
            out.append(item)
    return values if all(a is b for a, b in zip(out, values, strict=True)) else tuple(out)


@attrs.frozen(slots=True)
class Origin:
    """The legacy construct a node came from: its keyword text and source position."""

    construct: str
    span: Span

    def __str__(self) -> str:
        return f"{self.construct} at {self.span}"


def _origin_field() -> Origin | None:
    # attrs' stub types a field with a None default as Any; the attribute holds this.
    field: Origin | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)
    return field


# --------------------------------------------------------------------------------------
# Set filters
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True, cache_hash=True)
class PieceSet(Filter):
    """A piece designator: the squares of ``squares`` whose content is in ``types``.

    ``PieceSet(ANYTHING, FULL)`` is CQL's ``.`` (all squares); ``squares == 0`` is ``[]``.
    """

    WORD = "a piece designator"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION

    types: TypeSet = ANYTHING
    squares: SquareSet = FULL


@attrs.frozen(slots=True, cache_hash=True)
class Union(Filter):
    """``X | Y | …``."""

    WORD = "`|`"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION

    items: tuple[Filter, ...]


@attrs.frozen(slots=True, cache_hash=True)
class Intersection(Filter):
    """``X & Y & …``."""

    WORD = "`&`"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION

    items: tuple[Filter, ...]


@attrs.frozen(slots=True, cache_hash=True)
class Complement(Filter):
    """``~X``: the squares not in X."""

    WORD = "`~`"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION

    arg: Filter


@attrs.frozen(slots=True, cache_hash=True)
class Attacks(Filter):
    """``L attacks R``: squares of L whose piece attacks some square of R."""

    WORD = "`attacks`"
    CQL_WORDS = ("attacks",)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION

    left: Filter
    right: Filter


@attrs.frozen(slots=True, cache_hash=True)
class AttackedBy(Filter):
    """``L attackedby R``: squares of L attacked by some piece on R."""

    WORD = "`attackedby`"
    CQL_WORDS = ("attackedby",)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION

    left: Filter
    right: Filter


@attrs.frozen(slots=True, cache_hash=True)
class DirectionSet(Filter):
    """``up 1 3 X`` …: X moved ``lo..hi`` steps in each basic vector of ``direction``."""

    WORD = "a direction filter"
    CQL_WORDS = tuple(direction.word for direction in Direction)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION

    direction: Direction
    arg: Filter
    lo: int = 1
    hi: int = 7

    def word(self) -> str:
        return f"`{self.direction.word}`"


@attrs.frozen(slots=True, cache_hash=True)
class SquareColor(Filter):
    """CQL 6.1 ``light X`` / ``dark X``: the squares of X that are light (dark) squares
    of the board (a1 is dark).  Only in CQL 6 scripts."""

    WORD = "`light`"
    CQL_WORDS = ("light", "dark")
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION

    dark: bool
    arg: Filter

    def word(self) -> str:
        return "`dark`" if self.dark else "`light`"


class PawnFeature(enum.Enum):
    """What :class:`PawnStructure` asks of a pawn; the values are the CQL 6.1 words."""

    #: No enemy pawn ahead of it (towards its promotion rank) on its file or an adjacent one.
    PASSED = "passedpawns"
    #: No pawn of its colour on an adjacent file (any rank).
    ISOLATED = "isolatedpawns"
    #: Another pawn of its colour on its file (every pawn of such a file counts).
    DOUBLED = "doubledpawns"
    #: A pawn of its colour on an adjacent file (any rank).
    CONNECTED = "connectedpawns"


@attrs.frozen(slots=True, cache_hash=True)
class PawnStructure(Filter):
    """CQL 6.1 ``passedpawns``, ``isolatedpawns``, ``doubledpawns``, ``connectedpawns``:
    the squares of the pawns of either colour that have the feature, each pawn judged
    against the pawns of its own colour (and, for passed, the enemy's) (semantics:
    S-pawn-structure).  CQL defines them under ``notransform``: no transform changes them.
    Only in CQL 6 scripts."""

    SYNTAX = Syntax.WORD
    WORD = "a pawn-structure filter"
    CQL_WORDS = tuple(feature.value for feature in PawnFeature)
    KIND = Kind.SET
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.POSITION

    feature: PawnFeature

    def word(self) -> str:
        return f"`{self.feature.value}`"


@attrs.frozen(slots=True, cache_hash=True)
class Ray(Filter):
    """``ray [direction] (s1 s2 … sn)``; its value is the set of end squares."""

    WORD = "`ray`"
    CQL_WORDS = ("ray",)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION

    args: tuple[Filter, ...]
    direction: Direction = Direction.ANYDIRECTION


@attrs.frozen(slots=True, cache_hash=True)
class XRay(Filter):
    """``xray (s1 s2 … sn)``: a ray whose first square holds a matching line piece."""

    WORD = "`xray`"
    CQL_WORDS = ("xray",)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION

    args: tuple[Filter, ...]


@attrs.frozen(slots=True, cache_hash=True)
class Between(Filter):
    """``between (s t)``: squares strictly inside a queen line from s to t."""

    WORD = "`between`"
    CQL_WORDS = ("between",)
    KIND = Kind.SET
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION

    left: Filter
    right: Filter


class Castling(enum.Enum):
    """The side a ``move`` must castle to; the values are the CQL 6.1 parameters."""

    KINGSIDE = "o-o"
    QUEENSIDE = "o-o-o"


@attrs.frozen(slots=True, cache_hash=True)
class Move(Filter):
    """``move [previous] [o-o | o-o-o] [from X] [to Y] [capture Z] [promote T] [enpassant]``.

    Without ``previous`` it describes the move played from the current position in
    the line being traversed (the next move); with no such move it fails.
    ``promote`` is a type set (colours matter, as in the legacy ``:promote``).
    ``castle`` (CQL 6.1 only): the move castles to that side, either colour (semantics:
    S-castling).
    """

    WORD = "`move`"
    CQL_WORDS = (
        "move",
        "from",
        "to",
        "capture",
        "promote",
        "enpassant",
        "previous",
        *(side.value for side in Castling),
    )
    KIND = Kind.LOGICAL
    OPERANDS = SETS
    TRANSFORMS = Transforms.OWN
    READS = Reads.NEXT_MOVE

    from_: Filter | None = None
    to: Filter | None = None
    capture: Filter | None = None
    promote: TypeSet | None = None
    enpassant: bool = False
    previous: bool = False
    castle: Castling | None = None
    origin: Origin | None = _origin_field()

    def reads_itself(self) -> Reads:
        # The previous move is read from the position before: another position.
        return Reads.GAME if self.previous else Reads.NEXT_MOVE


@attrs.frozen(slots=True, cache_hash=True)
class PieceVariable(Filter):
    """``x``: the square of the piece bound to piece variable ``x`` (empty if captured)."""

    WORD = "a piece variable"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.GAME

    name: str


@attrs.frozen(slots=True, cache_hash=True)
class PieceLoop(Filter):
    """``piece x in DOMAIN BODY``: some piece on DOMAIN, bound to x, makes BODY match
    (a set filter: the squares of DOMAIN whose piece makes BODY match).

    ``all`` (``piece all x in DOMAIN BODY``) is logical: BODY matches for every piece on
    DOMAIN (so also when DOMAIN holds none).  The binding follows that physical piece
    through later positions, promotions, castling and en passant included
    (semantics: S-piece-variables, M6).
    """

    WORD = "`piece`"
    CQL_WORDS = ("piece", "all", "in")
    KIND = None
    OPERANDS = by_field(domain=SETS, body=ANY_FILTER)
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME

    name: str
    domain: Filter
    body: Filter
    all: bool = False

    def value_kind(self) -> Kind:
        return Kind.LOGICAL if self.all else Kind.SET

    def word(self) -> str:
        return "`piece all`" if self.all else "`piece`"


@attrs.frozen(slots=True, cache_hash=True)
class SquareVariable(Filter):
    """CQL 6.1 ``x`` bound by ``square x in …``: the one square bound to x (a set filter).

    Unlike a :class:`PieceVariable` it names a square, not a piece: its value is the same
    square at every position the body looks at (semantics: S-square-variables).  Its value
    is given per binding by the loop around it, at a position: declared to read the
    position so that nothing takes it for a constant of the game.
    """

    WORD = "a square variable"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.POSITION

    name: str


@attrs.frozen(slots=True, cache_hash=True)
class SquareLoop(Filter):
    """CQL 6.1 ``square x in DOMAIN BODY``: the squares of DOMAIN that, bound to x, make
    BODY match (a set filter; it matches when some square does).

    ``all`` (``square all x in DOMAIN BODY``) is logical: BODY matches for every square of
    DOMAIN, so also when DOMAIN is empty (CQL 6.1 square.html: "body is never false").
    Only in CQL 6 scripts.  A transform maps DOMAIN and BODY; x takes the images' squares.
    """

    WORD = "`square`"
    CQL_WORDS = ("square", "all", "in")
    KIND = None
    OPERANDS = by_field(domain=SETS, body=ANY_FILTER)
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION

    name: str
    domain: Filter
    body: Filter
    all: bool = False

    def value_kind(self) -> Kind:
        return Kind.LOGICAL if self.all else Kind.SET

    def word(self) -> str:
        return "`square all`" if self.all else "`square`"


@attrs.frozen(slots=True, cache_hash=True)
class InSet(Filter):
    """``X in Y`` for two square sets: X is a subset of Y (an empty X is in anything).

    Logical (semantics: S-modern-sets).
    """

    WORD = "`in`"
    CQL_WORDS = ("in",)
    KIND = Kind.LOGICAL
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    left: Filter
    right: Filter


# --------------------------------------------------------------------------------------
# Numeric filters
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True, cache_hash=True)
class Number(Filter):
    WORD = "a number"
    CQL_WORDS = ()
    KIND = Kind.NUMBER
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.TAGS

    value: int


@attrs.frozen(slots=True, cache_hash=True)
class Count(Filter):
    """``#X``: the size of set X (always matches)."""

    WORD = "`#`"
    CQL_WORDS = ()
    KIND = Kind.NUMBER
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    arg: Filter


@attrs.frozen(slots=True, cache_hash=True)
class Power(Filter):
    """``power X``: material on the squares of X (P1 N3 B3 R5 Q9 K0)."""

    WORD = "`power`"
    CQL_WORDS = ("power",)
    KIND = Kind.NUMBER
    OPERANDS = SETS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.POSITION

    arg: Filter


class ArithOp(enum.Enum):
    ADD = "+"
    SUB = "-"


@attrs.frozen(slots=True, cache_hash=True)
class Arith(Filter):
    WORD = "`+`/`-`"
    CQL_WORDS = ()
    KIND = Kind.NUMBER
    OPERANDS = NUMERIC
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    op: ArithOp
    left: Filter
    right: Filter


@attrs.frozen(slots=True, cache_hash=True)
class Negate(Filter):
    WORD = "unary `-`"
    CQL_WORDS = ()
    KIND = Kind.NUMBER
    OPERANDS = NUMERIC
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    arg: Filter


class NumericKeyword(enum.Enum):
    YEAR = "year"
    MOVENUMBER = "movenumber"
    PLY = "ply"


@attrs.frozen(slots=True, cache_hash=True)
class NumericValue(Filter):
    """``year``, ``movenumber``, ``ply``; ``year`` fails when the date has no year."""

    SYNTAX = Syntax.WORD
    WORD = "a numeric filter"
    CQL_WORDS = tuple(keyword.value for keyword in NumericKeyword)
    KIND = Kind.NUMBER
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.TAGS

    keyword: NumericKeyword

    def reads_itself(self) -> Reads:
        return Reads.TAGS if self.keyword is NumericKeyword.YEAR else Reads.POSITION


class Color(enum.Enum):
    WHITE = "white"
    BLACK = "black"

    def swapped(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE


@attrs.frozen(slots=True, cache_hash=True)
class Elo(Filter):
    """``elo white`` / ``elo black`` / ``elo`` (the larger); fails when missing."""

    WORD = "`elo`"
    CQL_WORDS = ("elo", "white", "black")
    KIND = Kind.NUMBER
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.TAGS

    color: Color | None = None


@attrs.frozen(slots=True, cache_hash=True)
class InRange(Filter):
    """``lo <= value <= hi``; either bound may be None (printed ``value >= lo`` …).

    ``lo == hi`` prints as ``value == lo``.  Fails when ``value`` fails.
    """

    WORD = "a comparison"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = NUMERIC
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    value: Filter
    lo: int | None
    hi: int | None


class CompareOp(enum.Enum):
    LT = "<"
    LE = "<="
    EQ = "=="
    GE = ">="
    GT = ">"
    NE = "!="


@attrs.frozen(slots=True, cache_hash=True)
class Compare(Filter):
    """A comparison that is not a range, as hand-written CQL 6 has them."""

    WORD = "a comparison"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = NUMERIC
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    op: CompareOp
    left: Filter
    right: Filter

    def operand_kinds(self) -> Iterator[tuple[Filter, frozenset[Kind]]]:
        # In a chain (`2 < P <= 5`) the right operand is the next comparison; this one
        # compares with that one's left value.  Two positions compare by their order.
        right = chain_value(self.right)
        positions = Kind.POSITION in (self.left.value_kind(), right.value_kind())
        for child in (self.left, right):
            yield child, POSITIONS if positions else NUMERIC


def chain_value(node: Filter) -> Filter:
    """What a comparison compares with when ``node`` is its right operand: the left value
    of a comparison that continues the chain, or ``node`` itself.

    >>> chain_value(InRange(Number(3), None, 5))
    Number(value=3)
    """
    if isinstance(node, InRange):
        return node.value
    if isinstance(node, Compare):
        return node.left
    return node


# --------------------------------------------------------------------------------------
# Logical, position and game filters
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True, cache_hash=True)
class Compound(Filter):
    """``{F1 … Fn}``: all constituents match; the value is that of the last."""

    WORD = "`{ }`"
    CQL_WORDS = ()
    KIND = None
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    items: tuple[Filter, ...]

    def value_kind(self) -> Kind:
        # The value is the last constituent's; a comment kept at its place is none.
        items = [item for item in self.items if not isinstance(item, Comment)]
        return items[-1].value_kind() if items else Kind.LOGICAL


@attrs.frozen(slots=True, cache_hash=True)
class And(Filter):
    WORD = "`and`"
    CQL_WORDS = ("and",)
    KIND = Kind.LOGICAL
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    items: tuple[Filter, ...]


@attrs.frozen(slots=True, cache_hash=True)
class Or(Filter):
    WORD = "`or`"
    CQL_WORDS = ("or",)
    KIND = Kind.LOGICAL
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    items: tuple[Filter, ...]


@attrs.frozen(slots=True, cache_hash=True)
class Not(Filter):
    WORD = "`not`"
    CQL_WORDS = ("not",)
    KIND = Kind.LOGICAL
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    arg: Filter


class Keyword(enum.Enum):
    TRUE = "true"
    FALSE = "false"
    WTM = "wtm"
    BTM = "btm"
    CHECK = "check"
    MATE = "mate"
    STALEMATE = "stalemate"
    INITIAL = "initial"
    TERMINAL = "terminal"
    MAINLINE = "mainline"
    #: A position that is not on the main line (``not mainline``).
    VARIATION = "variation"


@attrs.frozen(slots=True, cache_hash=True)
class Simple(Filter):
    """An argument-less filter: ``wtm``, ``check``, ``initial``, ``true`` …"""

    SYNTAX = Syntax.WORD
    WORD = "a keyword filter"
    CQL_WORDS = tuple(keyword.value for keyword in Keyword)
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.TAGS

    keyword: Keyword

    def reads_itself(self) -> Reads:
        return _SIMPLE_READS[self.keyword]

    def word(self) -> str:
        return f"`{self.keyword.value}`"


#: ``terminal`` asks whether a move follows; ``true``/``false`` read nothing.
_SIMPLE_READS = {
    **{keyword: Reads.POSITION for keyword in Keyword},
    Keyword.TRUE: Reads.TAGS,
    Keyword.FALSE: Reads.TAGS,
    Keyword.TERMINAL: Reads.NEXT_MOVE,
}


@attrs.frozen(slots=True, cache_hash=True)
class SideToMove(Filter):
    """``sidetomove``: 1 when White is to move, -1 when Black is (numeric).

    The colour swap of a transform leaves it alone (decision M9)."""

    SYNTAX = Syntax.WORD
    WORD = "`sidetomove`"
    CQL_WORDS = ("sidetomove",)
    KIND = Kind.NUMBER
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.POSITION


@attrs.frozen(slots=True, cache_hash=True)
class Result(Filter):
    """``result 1-0`` …: the game's Result tag (``*`` never matches)."""

    WORD = "`result`"
    CQL_WORDS = ("result",)
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.TAGS

    result: GameResult


@attrs.frozen(slots=True, cache_hash=True)
class Player(Filter):
    """``player [white|black] "text"``: substring of the player tag(s).

    ``ignore_case`` reproduces the legacy ``:player`` (L10).
    """

    WORD = "`player`"
    CQL_WORDS = ("player", "white", "black", "in", "lowercase")
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.OWN
    READS = Reads.TAGS

    text: str
    color: Color | None = None
    ignore_case: bool = False
    origin: Origin | None = _origin_field()


class TagName(enum.Enum):
    EVENT = "event"
    SITE = "site"


@attrs.frozen(slots=True, cache_hash=True)
class TagContains(Filter):
    """``event "text"`` / ``site "text"``: substring of that tag."""

    WORD = "a tag filter"
    CQL_WORDS = (*(tag.value for tag in TagName), "in", "lowercase")
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.TAGS

    tag: TagName
    text: str


@attrs.frozen(slots=True, cache_hash=True)
class Comment(Filter):
    """A ``//`` comment at its place (T3); matches always and changes nothing.

    ``trailing`` says the comment annotates the filter before it in its compound: it is
    written at the end of that filter's (last) line, as ``Nd4  // the knight``.  A
    trailing comment that opens a compound annotates the opening: it is written on the
    line of the ``{`` (or of the ``cql( )`` header, for the first filter of the body).
    Otherwise the comment stands on a line of its own, before what follows it.
    """

    WORD = "a comment"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.TAGS

    text: str
    trailing: bool = False


# --------------------------------------------------------------------------------------
# Filters over several positions
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class LineStep:
    """One constituent of ``line``: ``filter`` repeated ``lo..hi`` times (hi None = no limit).

    ``(1, 1)`` is a plain constituent, ``(0, None)`` is ``*``, ``(1, None)`` is ``+``,
    ``(0, 1)`` is ``?``, anything else ``{lo hi}``.
    """

    filter: Filter
    lo: int = 1
    hi: int | None = 1


@attrs.frozen(slots=True, cache_hash=True)
class Line(Filter):
    """``line --> C1 --> C2 …``: C1 at the current position, C2 at the next, …

    "Next" follows the line being traversed (the main line, or inside a variation
    that variation).  Only forward lines are used by the translator.
    """

    WORD = "`line`"
    CQL_WORDS = ("line",)
    KIND = Kind.LOGICAL
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME

    steps: tuple[LineStep, ...]


@attrs.frozen(slots=True, cache_hash=True)
class LineGroup(Filter):
    """``( C1 --> C2 … )``: a group of ``line`` constituents, only ever the ``filter`` of a
    :class:`LineStep`, so that the whole group repeats (``(C1 --> C2)+``).

    In a canonical tree the step holding a group has a repetition other than ``(1, 1)``
    (an unrepeated group is its constituents written in place) and a group has at least
    one step.  A group is evaluated only as part of its line (semantics: S-move-and-line).
    """

    WORD = "`line`"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME

    steps: tuple[LineStep, ...]


@attrs.frozen(slots=True, cache_hash=True)
class Find(Filter):
    """``find F``: F matches here or at a later position of the line.

    ``all`` makes it numeric: the number of such positions (``find all F``).
    """

    WORD = "`find`"
    CQL_WORDS = ("find", "all")
    KIND = None
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME

    arg: Filter
    all: bool = False

    def value_kind(self) -> Kind:
        return Kind.NUMBER if self.all else Kind.LOGICAL


class TransformKind(enum.Enum):
    FLIPCOLOR = "flipcolor"
    REVERSECOLOR = "reversecolor"
    FLIP = "flip"
    FLIPHORIZONTAL = "fliphorizontal"
    FLIPVERTICAL = "flipvertical"
    ROTATE90 = "rotate90"
    SHIFT = "shift"
    SHIFTHORIZONTAL = "shifthorizontal"
    SHIFTVERTICAL = "shiftvertical"


@attrs.frozen(slots=True, cache_hash=True)
class Transform(Filter):
    """``T F`` / ``T count F`` with the orbit semantics of CQL 6 (semantics: S-orbits)."""

    WORD = "a transform"
    CQL_WORDS = (*(kind.value for kind in TransformKind), "count")
    KIND = None
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    kind: TransformKind
    arg: Filter
    count: bool = False

    def value_kind(self) -> Kind:
        return Kind.NUMBER if self.count else self.arg.value_kind()

    def word(self) -> str:
        return f"`{self.kind.value}`"


# --------------------------------------------------------------------------------------
# Comparing positions: echo, position variables and their filters (semantics: S-echo)
# --------------------------------------------------------------------------------------


@attrs.frozen(slots=True, cache_hash=True)
class Echo(Filter):
    """``echo (S T) BODY``: with S bound to the current position (the source), some other
    position of the game in scope, bound to T and made current (the target), makes BODY
    match.  ``in_all`` (``echo (S T) in all BODY``) also tries the source as a target.

    Logical; numeric when BODY is numeric: the largest value over the targets where BODY
    matched.  ``quiet`` only silences CQL's comments and changes no match.
    """

    WORD = "`echo`"
    CQL_WORDS = ("echo", "in", "all", "quiet")
    KIND = None
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME

    source: str
    target: str
    body: Filter
    in_all: bool = False
    quiet: bool = False

    def value_kind(self) -> Kind:
        return Kind.NUMBER if self.body.value_kind() is Kind.NUMBER else Kind.LOGICAL


@attrs.frozen(slots=True, cache_hash=True)
class PositionVariable(Filter):
    """``S``: the position bound to the echo variable S (a position value).

    A position is usable only where a position is wanted: ``S : F``, ``S & T``, ``S < T``
    and the other comparisons (position order, M7), ``ancestor(S T)``.
    """

    WORD = "a position variable"
    CQL_WORDS = ()
    KIND = Kind.POSITION
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.NOTHING
    READS = Reads.GAME

    name: str


#: The node classes whose value is what a loop or ``echo`` around them bound: a filter
#: holding one of them is no constant of the bindings (the evaluator's caches ask).
VARIABLES: tuple[type[Filter], ...] = (PieceVariable, SquareVariable, PositionVariable)


@attrs.frozen(slots=True, cache_hash=True)
class AtPosition(Filter):
    """``POSITION : F``: F evaluated with POSITION as the current position; it matches when F
    matched there, and its value is F's value there."""

    WORD = "`:`"
    CQL_WORDS = ()
    KIND = None
    OPERANDS = by_field(position=POSITIONS, arg=ANY_FILTER)
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME

    position: Filter
    arg: Filter

    def value_kind(self) -> Kind:
        return self.arg.value_kind()


@attrs.frozen(slots=True, cache_hash=True)
class PositionIntersection(Filter):
    """``X & Y`` of two positions: the squares on which both hold the same piece type and
    colour, a square empty in both included (a set filter)."""

    WORD = "`&`"
    CQL_WORDS = ()
    KIND = Kind.SET
    OPERANDS = POSITIONS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME

    left: Filter
    right: Filter


@attrs.frozen(slots=True, cache_hash=True)
class Ancestor(Filter):
    """``ancestor(X Y)``: position X is Y or lies before Y on the way from the start
    position to Y (logical; decision M8)."""

    WORD = "`ancestor`"
    CQL_WORDS = ("ancestor",)
    KIND = Kind.LOGICAL
    OPERANDS = POSITIONS
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.GAME

    left: Filter
    right: Filter


# --------------------------------------------------------------------------------------
# Legacy-only constructs (no CQL 6.1 text)
# --------------------------------------------------------------------------------------


class RelationSideToMove(enum.Enum):
    SAME = "same"
    CHANGE = "change"
    IGNORE = "ignore"


class RelationScope(enum.Enum):
    MAINLINE = "mainline"
    ALL = "all"
    VARIATIONS = "variations"


@attrs.frozen(slots=True, cache_hash=True)
class Relation(Filter):
    """Legacy ``:relation``: some later position P2 relates to the current one P1.

    ``allowable`` is the set of compared squares (FULL unless ``:pattern``);
    ``shift``/``flip`` allow P2 to be transformed before comparing; the counts are
    ``(types, lo, hi)`` / ``(lo, hi)`` with ``hi`` None for unlimited.
    """

    WORD = "`:relation`"
    CQL_WORDS = ()
    KIND = Kind.LOGICAL
    OPERANDS = NO_OPERANDS
    TRANSFORMS = Transforms.REFUSED
    READS = Reads.GAME

    MODERN: ClassVar[bool] = False

    allowable: SquareSet = FULL
    missing: tuple[TypeSet, int, int | None] = (ANYTHING, 0, 0)
    new: tuple[TypeSet, int, int | None] = (ANYTHING, 0, 0)
    original_different: tuple[int, int | None] | None = None
    original_same: tuple[int, int | None] | None = None
    shift: bool = False
    flip: bool = False
    side_to_move: RelationSideToMove = RelationSideToMove.SAME
    scope: RelationScope = RelationScope.MAINLINE
    origin: Origin | None = _origin_field()


@attrs.frozen(slots=True, cache_hash=True)
class RayCount(Filter):
    """Legacy ``:ray…`` counting (L20): the number of rays, numeric.

    A ray is a run of squares on one line in one of ``directions`` (basic
    directions only) whose first square matches ``args[0]``, last matches
    ``args[-1]``, whose inner designators take distinct inner squares in order, and
    whose other inner squares are empty.  With ``attack`` (``:rayattack``) the first
    square must hold a rook or queen for an orthogonal ray, a bishop or queen for a
    diagonal one (either colour).
    """

    WORD = "a legacy ray count"
    CQL_WORDS = ()
    KIND = Kind.NUMBER
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.OWN
    READS = Reads.POSITION

    MODERN: ClassVar[bool] = False

    args: tuple[Filter, ...]
    directions: tuple[Direction, ...]
    attack: bool = False
    origin: Origin | None = _origin_field()


@attrs.frozen(slots=True, cache_hash=True)
class LegacyOnly(Filter):
    """Any other legacy construct the translator rewrote into a core node the printer
    cannot express; ``filter`` is what the evaluator runs."""

    WORD = "a legacy-only filter"
    CQL_WORDS = ()
    KIND = None
    OPERANDS = ANY_FILTER
    TRANSFORMS = Transforms.CHILDREN
    READS = Reads.TAGS

    MODERN: ClassVar[bool] = False

    filter: Filter
    origin: Origin | None = _origin_field()

    def value_kind(self) -> Kind:
        return self.filter.value_kind()


# --------------------------------------------------------------------------------------
# The query
# --------------------------------------------------------------------------------------


class Mark(enum.Enum):
    """Which matching positions of a top-level list get a ``MATCH`` comment (L3)."""

    FIRST = "first"
    ALL = "all"
    NONE = "none"


class Scope(enum.Enum):
    """Which positions a top-level list examines (L14).

    "Only variations" is ``ALL`` with a ``not mainline`` constituent in the body, as
    CQL 6 writes it; "main line only" next to lists that need variations is ``ALL``
    with a ``mainline`` constituent.
    """

    MAINLINE = "mainline"
    ALL = "all"


@attrs.frozen(slots=True)
class TopList:
    """One top-level condition of a game: ``body`` evaluated at every examined position.

    The game needs the number of matching positions in ``matchcount``
    (``(lo, hi)``, hi None = no limit; None means "at least one").
    """

    body: Filter
    matchcount: tuple[int, int | None] | None = None
    mark: Mark = Mark.ALL
    scope: Scope = Scope.MAINLINE
    origin: Origin | None = _origin_field()


@attrs.frozen(slots=True)
class Header:
    """What CQL 6 writes in ``cql( … )`` besides per-list settings."""

    inputs: tuple[str, ...] = ()
    output: str | None = None
    gamenumber: tuple[int, int | None] | None = None


@attrs.frozen(slots=True)
class TagDeclaration:
    """Legacy ``:forany NAME PD``: NAME is bound to one physical piece of the start
    position that is, now or after a promotion, of a type in ``types``.

    The whole query is evaluated once per binding of all tags (distinct tags take
    distinct pieces); the game matches when some binding satisfies every list.
    :class:`PieceVariable` nodes read the bound piece's current square.
    """

    MODERN: ClassVar[bool] = False

    name: str
    types: TypeSet
    origin: Origin | None = _origin_field()

    def start_types(self) -> TypeSet:
        """The types a piece of the start position may have to be eligible: ``types``
        and the pawns of each colour that has a piece type in ``types`` a pawn can
        promote to (that pawn may become one later).

        >>> from cqllegacy.vocab.pieces import format_modern_types, types_of
        >>> format_modern_types(TagDeclaration("rook", types_of("Rr")).start_types())
        '[RPrp]'
        >>> format_modern_types(TagDeclaration("king", types_of("K")).start_types())
        'K'
        """
        start = self.types & ANY_PIECE
        for pawn, promoted in ((_WHITE_PAWN, _WHITE_PROMOTED), (_BLACK_PAWN, _BLACK_PROMOTED)):
            if start & promoted:
                start |= pawn
        return start


_WHITE_PAWN = types_of("P")
_BLACK_PAWN = types_of("p")
_WHITE_PROMOTED = types_of("QRBN")
_BLACK_PROMOTED = types_of("qrbn")


@attrs.frozen(slots=True)
class Query:
    """A complete query: a game matches when every top-level list is satisfied.

    A CQL 6 script is a query with one list; a legacy script has one list per
    top-level position list (they may match at different positions).
    """

    header: Header
    lists: tuple[TopList, ...]
    tags: tuple[TagDeclaration, ...] = ()
    leading_comments: tuple[str, ...] = ()
