"""The declaration machinery of the core's filter tree: what every node class states.

A node class declares its facts in its own body (:class:`Filter` lists them); the
enums here name their values.  :func:`node_classes` lists every declared class, and the
tables other layers keep are derived from it.  The node classes themselves live in
modules of their own, by family; :mod:`cqllegacy.core.tree` gathers them.

>>> Precedence.OR < Precedence.AND
True
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import ClassVar, TypeVar

import attrs

from cqllegacy.records import Record
from cqllegacy.vocab.spans import Span


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


class Precedence(enum.IntEnum):
    """How tightly a filter's CQL 6.1 text binds, higher binding tighter: the precedence
    table of CQL 6.1 as the ``chessql`` parser reads it, adjusted where the two differ
    (decision M10).  Each node class declares the level of its outer form
    (``PRECEDENCE``); the printer parenthesises an operand whose level is below what its
    place needs, and the modern reader climbs the same levels.

    >>> Precedence.OR < Precedence.AND < Precedence.NOT < Precedence.ATOM
    True
    """

    LINE = 10
    #: Transforms, ``find``, piece loops, ``echo``: prefix forms whose argument reaches ``or``.
    TRANSFORM = 30
    OR = 40
    AND = 50
    NOT = 60
    IN = 70
    RELATION = 80
    #: Unary minus: below ``#`` in the CQL 6.1 table, above ``* / %`` in chessql.
    UNARY = 90
    COUNT = 100
    ARITH = 110
    POWER = 150
    UNION = 160
    INTERSECTION = 170
    COMPLEMENT = 180
    ATTACK = 190
    #: ``move`` parameters take their argument above this level.
    MOVE = 200
    #: A direction's argument (no class prints at this level).
    DIRECTION = 210
    #: ``POSITION : FILTER`` binds tighter than anything else.
    COLON = 220
    #: A single token, or a form closed by brackets or parentheses.
    ATOM = 1000


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
    the class's declarations, or by one written for it there.  The regular shapes are
    declared by a form instead: :class:`Prefix`, :class:`Arguments`, :class:`Loop`."""

    #: The reader (modern/forms.py, listed in modern/grammar.py) and the printer
    #: (modern/node_printers.py) each have a form written for it.
    OWN = "own"
    #: A bare word: each of its ``CQL_WORDS`` alone is one node (:func:`bare_words`): the
    #: class has no field, and one word, or one enum field whose values are its words.
    #: The reader's entry and the printer's text are derived; neither file names it.
    WORD = "word"


class Place(enum.Enum):
    """Where a derived form writes its operand: when the printer parenthesises it."""

    #: Parenthesised only below the node's own level (``not X``).
    LEVEL = "level"
    #: One token or a prefix form over one; a number always parenthesised (``power X``).
    CLOSED = "closed"
    #: One token; a number parenthesised (``light X``).
    TOKEN = "token"


@attrs.frozen(repr=False)
class Prefix(Record):
    """``SYNTAX`` of a word and one operand: ``not X``, ``power X``, ``light X``, ``abs X``.

    The class has one filter field (the operand), and ``flag`` when two words share it: a
    bool field the word sets (``CQL_WORDS[0]`` False, ``CQL_WORDS[1]`` True).  The reader
    reads the operand as what binds tighter than ``reads_above`` (by default the class's
    ``PRECEDENCE``); the printer writes it at ``place``.
    """

    reads_above: Precedence | None = None
    place: Place = Place.LEVEL
    flag: str | None = None


@attrs.frozen(repr=False)
class Arguments(Record):
    """``SYNTAX`` of a word and its filter fields in parentheses, in field order:
    ``between (X Y)``, ``ancestor(X Y)``, ``distance(X Y)``.

    Each argument reads as a ``|``-level filter and prints closed; ``gap`` stands between
    the word and the ``(``.
    """

    gap: str = ""


@attrs.frozen(repr=False)
class Loop(Record):
    """``SYNTAX`` of ``WORD [all] NAME in DOMAIN BODY``: ``piece …``, ``square …``.

    The class has the fields ``name``, ``domain``, ``body`` and ``all``; NAME is bound in
    BODY as a variable of kind ``binds`` (``"piece"``, ``"square"``).
    """

    binds: str


#: A form the reader's entry and the printer's text are derived from.
DerivedSyntax = Prefix | Arguments | Loop


@attrs.frozen(repr=False)
class Shape(Record):
    """What a derived form reads and writes, found from the class's fields."""

    #: The words that start the form.
    words: tuple[str, ...]
    #: The filter fields, in order (attribute names).
    operands: tuple[str, ...]
    #: ``__init__`` parameter of each field.
    aliases: Mapping[str, str]

    def make(self, cls: type[Filter], **fields: object) -> Filter:
        """A node of ``cls`` from its fields, named as attributes."""
        made: Filter = cls(**{self.aliases[name]: value for name, value in fields.items()})
        return made


def derived_shape(cls: type[Filter]) -> Shape:
    """The shape of ``cls``'s derived form (its ``SYNTAX``), checked against its fields: a
    :class:`DeclarationError` when they do not fit, when the reader and the printer load.

    >>> from cqllegacy.core.tree import Between, SquareColor
    >>> derived_shape(Between).operands, derived_shape(SquareColor).words
    (('left', 'right'), ('light', 'dark'))
    """
    syntax = cls.SYNTAX
    if not isinstance(syntax, Prefix | Arguments | Loop):
        raise DeclarationError(f"node class {cls.__name__} declares no derived SYNTAX")
    fields = _node_fields(cls)
    hints = typing.get_type_hints(cls)
    names = [name for name, _ in fields.init if name != "origin"]
    operands = tuple(name for name in names if hints.get(name) is Filter)
    others = {name: hints.get(name) for name in names if name not in operands}
    words = cls.CQL_WORDS[:1]
    if isinstance(syntax, Prefix):
        fits = len(operands) == 1 and (cls.PRECEDENCE or syntax.reads_above) is not None
        if syntax.flag is not None:
            fits = fits and others == {syntax.flag: bool} and len(set(cls.CQL_WORDS[:2])) == 2
            words = cls.CQL_WORDS[:2]
        else:
            fits = fits and not others
        shape = "one filter field (and the bool `flag`), a declared level"
    elif isinstance(syntax, Arguments):
        fits = bool(operands) and not others
        shape = "filter fields only"
    else:
        fits = operands == ("domain", "body") and others == {"name": str, "all": bool}
        shape = "the fields name, domain, body and all"
    if not fits or not words:
        raise DeclarationError(
            f"node class {cls.__name__} declares SYNTAX = {syntax!r} but does not have its"
            f" shape: {shape}, and a CQL word"
        )
    return Shape(words, operands, MappingProxyType(dict(fields.init)))


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
DECLARED_FACTS = ("WORD", "CQL_WORDS", "KIND", "OPERANDS", "TRANSFORMS", "READS", "PRECEDENCE")

#: Every node class, by (module, name), in the order they were defined.
_NODE_CLASSES: dict[tuple[str, str], type[Filter]] = {}

#: The name that stands for the core's node classes: the facade that gathers them.
CORE = "cqllegacy.core.tree"

#: The modules of the core's node classes, by family, in the order the families read.
CORE_NODE_MODULES = (
    "cqllegacy.core.set_nodes",
    "cqllegacy.core.number_nodes",
    "cqllegacy.core.logic_nodes",
    "cqllegacy.core.line_nodes",
    "cqllegacy.core.position_nodes",
    "cqllegacy.core.legacy_nodes",
)


class DeclarationError(TypeError):
    """A node class leaves out one of the facts every construct declares."""


def node_classes(module: str | None = CORE) -> tuple[type[Filter], ...]:
    """Every node class defined in ``module`` (the core's, by default; None: every one),
    in definition order: the one list the tables and the tests are derived from.

    The core's classes (``module`` :data:`CORE`) come family by family, in the order of
    :data:`CORE_NODE_MODULES`, whichever family module was imported first.

    >>> import cqllegacy.core.tree
    >>> [cls.__name__ for cls in node_classes()][:3]
    ['PieceSet', 'Union', 'Intersection']
    """
    if module == CORE:
        return tuple(cls for name in CORE_NODE_MODULES for cls in node_classes(name))
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

    >>> import cqllegacy.core.tree
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


class Filter(Record):
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
    - ``PRECEDENCE``: the :class:`Precedence` level of its CQL 6.1 text's outer form (the
      printer's table), or None when a field decides: then the class defines
      :meth:`precedence` itself.

    ``MODERN`` (False for nodes CQL 6.1 cannot express) defaults to True; ``SYNTAX``
    (:class:`Syntax`) defaults to ``OWN``: a form written in the reader and the printer.
    A regular shape declares its form instead (:class:`Prefix`, :class:`Arguments`,
    :class:`Loop`): the reader's entry and the printer's text are derived from it.  A
    class that leaves a fact out is refused when it is created (:class:`DeclarationError`); the
    tables other layers keep (kinds, words, transform rules, the reference-rule list) are
    derived from these declarations through :func:`node_classes`.

    The tree's algebra below opens some nodes (``{ }``, ``and``, ``or``, ``|``, ``+``):
    a node class says how through the ``_…_items`` hooks, so this module names none.

    >>> from cqllegacy.core.tree import Count, Not, Number, PieceSet
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
    SYNTAX: ClassVar[Syntax | DerivedSyntax] = Syntax.OWN
    WORD: ClassVar[str]
    CQL_WORDS: ClassVar[tuple[str, ...]]
    KIND: ClassVar[Kind | None]
    OPERANDS: ClassVar[frozenset[Kind] | Mapping[str, frozenset[Kind]]]
    TRANSFORMS: ClassVar[Transforms]
    READS: ClassVar[Reads] = Reads.GAME
    PRECEDENCE: ClassVar[Precedence | None]
    #: A comment kept at its place: the tree's algebra leaves it out (T3).
    IS_COMMENT: ClassVar[bool] = False
    #: A piece designator: what :meth:`designators` collects.
    IS_DESIGNATOR: ClassVar[bool] = False

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
        if cls.PRECEDENCE is None and "precedence" not in vars(cls):
            raise DeclarationError(
                f"node class {cls.__name__} declares PRECEDENCE = None but defines no precedence()"
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

    def precedence(self) -> Precedence:
        """The level of this node's CQL 6.1 text (``PRECEDENCE`` unless a field decides)."""
        level = self.PRECEDENCE
        assert level is not None  # a class declaring None defines precedence() (checked)
        return level

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

    def _conjunction_items(self) -> tuple[Filter, ...] | None:
        """What :meth:`conjuncts` opens this node into, or None: it is a conjunct."""
        return None

    def _disjunction_items(self) -> tuple[Filter, ...] | None:
        """What :meth:`disjuncts` opens this node into, or None: it is a disjunct."""
        return None

    def _sum_operands(self) -> tuple[Filter, Filter] | None:
        """The two terms of this node when it is an addition (:meth:`sum_terms`)."""
        return None

    def conjuncts(self) -> tuple[Filter, ...]:
        """The filters that must all match wherever this node matches: the items of
        ``{ }`` and ``and`` (nested ones flattened, comments left out, a legacy-only
        wrapper opened), or the node itself.

        >>> from cqllegacy.core.tree import And, Comment, Compound, Not, PieceSet
        >>> from cqllegacy.vocab.pieces import types_of
        >>> k, q = PieceSet(types_of("K")), PieceSet(types_of("Q"))
        >>> Compound((k, Comment("x"), And((q, Not(k))))).conjuncts() == (k, q, Not(k))
        True
        """
        return _flattened(self, lambda node: node._conjunction_items())

    def disjuncts(self) -> tuple[Filter, ...]:
        """The filters one of which must match for this node to match: the items of
        ``or`` and ``|`` (nested ones flattened, comments left out, a legacy-only wrapper
        or a one-filter ``{ }`` opened), or the node itself.  Transform orbits are left
        closed (core.transforms expands them).

        >>> from cqllegacy.core.tree import Compound, Or, PieceSet, Union
        >>> from cqllegacy.vocab.pieces import types_of
        >>> k, q, r = (PieceSet(types_of(t)) for t in "KQR")
        >>> Or((k, Compound((Union((q, r)),)))).disjuncts() == (k, q, r)
        True
        """
        return _flattened(self, lambda node: node._disjunction_items())

    def designators(self) -> tuple[Filter, ...]:
        """The piece designators among :meth:`conjuncts`: each must find a square
        wherever this node matches."""
        return tuple(part for part in self.conjuncts() if part.IS_DESIGNATOR)

    def sum_terms(self, *, regroup: bool = True) -> tuple[Filter, ...]:
        """The terms of the n-ary sum this node is: ``a + b + …`` read as one sum, in
        order, or the node itself when it is no sum.

        ``regroup`` (the default) reads sums on either side, ``a + (b + c)`` included, as
        one sum (addition associates); ``regroup=False`` opens only the left-associated
        chain CQL text writes without parentheses.  No recursion: an accumulated legacy
        list may be a sum of thousands of terms.

        >>> from cqllegacy.core.tree import Arith, ArithOp, Number
        >>> a, b, c = Number(1), Number(2), Number(3)
        >>> Arith(ArithOp.ADD, a, Arith(ArithOp.ADD, b, c)).sum_terms() == (a, b, c)
        True
        >>> len(Arith(ArithOp.ADD, a, Arith(ArithOp.ADD, b, c)).sum_terms(regroup=False))
        2
        """
        if not regroup:
            chain: list[Filter] = []
            node: Filter = self
            while (operands := node._sum_operands()) is not None:
                node, right = operands
                chain.append(right)
            chain.append(node)
            return tuple(reversed(chain))
        terms: list[Filter] = []
        pending: list[Filter] = [self]
        while pending:
            item = pending.pop()
            operands = item._sum_operands()
            if operands is not None:
                pending += (operands[1], operands[0])
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
                # The filters of a tuple of filters or line steps, inline: every walk
                # of a tree comes here.
                for item in value:
                    if isinstance(item, Filter):
                        found.append(item)
                    elif isinstance(item, LineStep):
                        found.append(item.filter)
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
            pending.extend(reversed([i for i in inside if not i.IS_COMMENT]))
    return tuple(found)


@attrs.frozen(repr=False)
class _NodeFields(Record):
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


@attrs.frozen(repr=False, slots=True)
class LineStep(Record):
    """One constituent of ``line``: ``filter`` repeated ``lo..hi`` times (hi None = no limit).

    ``(1, 1)`` is a plain constituent, ``(0, None)`` is ``*``, ``(1, None)`` is ``+``,
    ``(0, 1)`` is ``?``, anything else ``{lo hi}``.
    """

    filter: Filter
    lo: int = 1
    hi: int | None = 1


def _map_tuple(values: tuple[object, ...], fn: Callable[[Filter], Filter]) -> tuple[object, ...]:
    """``values`` with ``fn`` applied to its filters (the same tuple when nothing changed)."""
    out: list[object] = []
    changed = False
    for item in values:
        new: object = item
        if isinstance(item, Filter):
            new = fn(item)
        elif isinstance(item, LineStep):
            image = fn(item.filter)
            if image is not item.filter:
                # LineStep's constructor, not attrs.evolve: orbits of :sequence lists
                # rebuild thousands of steps, and evolve reads the fields each time.
                new = LineStep(image, item.lo, item.hi)
        changed = changed or new is not item
        out.append(new)
    return tuple(out) if changed else values


@attrs.frozen(repr=False, slots=True)
class Origin(Record):
    """The legacy construct a node came from: its keyword text and source position."""

    construct: str
    span: Span

    def __str__(self) -> str:
        return f"{self.construct} at {self.span}"


def origin_field() -> Origin | None:
    """The ``origin`` field of a node: the legacy construct it came from, left out of
    equality and ``repr``."""
    # attrs' stub types a field with a None default as Any; the attribute holds this.
    field: Origin | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)
    return field
