"""Necessary conditions of a query, for a position index (:mod:`cqllegacy.indexing`).

:func:`necessity` says what a game must show for the query to match it, in terms an
index of main-line positions can check without replaying anything: for each top-level
list that needs a match, one examined position where one of a few *alternatives* holds.
An alternative is a conjunction of

* piece atoms (:class:`~cqllegacy.evaluator.operators.Atom`) and position flags (side to
  move, check, mate, stalemate, the initial position) of that position;
* attacks by pawns, knights and kings (:class:`Attack`), which their squares decide;
* move facts (:class:`MoveFact`): what the move played from that position must be (its
  from- and to-square, the piece moved, taken or promoted to, en passant, castling);
* conditions at the positions a few plies later along the main line (the steps of a
  ``line`` after the first; ``move previous`` is a move fact of the position before);
* conditions that hold at some main-line position of the game, not said which (a
  ``find``, the steps of a ``line`` after a repeated one).

Everything here is conservative: a condition is only ever left out (which admits more
games), or widened, never guessed.  The atoms come from :func:`~cqllegacy.evaluator.
lowering.necessary_atoms`, the orbits and other disjunctions from
:func:`~cqllegacy.evaluator.lowering.disjunction_members`, what a piece variable lies
within from :func:`~cqllegacy.evaluator.lowering.relaxed_necessity` (the lowering relies on
all three for its own speed-ups); a node none knows says nothing.  A disjunction of more
than :data:`MAX_ALTERNATIVES` alternatives (an orbit of a large pattern under ``:shift``)
is not dropped but widened to its *hull*: the alternatives alike but for their squares
become one, whose atoms and move facts take the union of their squares.  A query whose
lists read the tags (``tags``: a conjunct that reads the tags alone, which the run checks
on the stored tags before a game is read) or the game numbers narrows by them even where
it examines variations; its positions are narrowed only on the main line.  A query that
needs nothing the index can check has no necessity (None): it is scanned.

>>> from cqllegacy.core.tree import Header, Query, TopList, Transform, TransformKind
>>> from cqllegacy.evaluator.testing import pd
>>> need = necessity(Query(Header(), (TopList(Compound((pd("Ka1"), Simple(Keyword.CHECK)))),)))
>>> [(len(a.atoms), sorted(a.flags)) for a in need.lists[0].alternatives]
[(1, ['check'])]
>>> flip = Transform(TransformKind.FLIPCOLOR, pd("Ka1"))
>>> len(necessity(Query(Header(), (TopList(flip),))).lists[0].alternatives)
2
"""

from __future__ import annotations

import contextvars
import functools
import itertools
from collections.abc import Iterable, Mapping, Sequence

import attrs
import chess

from cqllegacy.core import tree as ct
from cqllegacy.core.tree import (
    Arith,
    ArithOp,
    AttackedBy,
    Attacks,
    Compound,
    Count,
    Filter,
    Find,
    InRange,
    Intersection,
    Keyword,
    LegacyOnly,
    Line,
    LineGroup,
    Move,
    PieceSet,
    PieceVariable,
    Query,
    Simple,
    Union,
)
from cqllegacy.evaluator.analysis import QueryAnalysis, analyse
from cqllegacy.evaluator.lowering import (
    common_bound,
    disjunction_members,
    necessary_atoms,
    relaxed_necessity,
    tag_bounds,
)
from cqllegacy.evaluator.operators import Atom
from cqllegacy.evaluator.trees import meaningful
from cqllegacy.records import Record
from cqllegacy.vocab.pieces import (
    ANY_PIECE,
    ANYTHING,
    BLACK_PIECES,
    WHITE_PIECES,
    TypeSet,
    piece_bit,
    piece_types_in,
    types_of,
)
from cqllegacy.vocab.squares import FULL

__all__ = [
    "MAX_ALTERNATIVES",
    "POSITION_ONLY_FLAGS",
    "Alternative",
    "Attack",
    "ListNeed",
    "MoveFact",
    "Necessity",
    "hull",
    "necessity",
    "piece_tag_bounds",
]

#: Beyond this many alternatives a disjunction is widened to its hull (:func:`hull`), and
#: a hull still wider is dropped: it would admit nearly every game, and the question would
#: cost more than it saves.
MAX_ALTERNATIVES = 512
#: Orbits with more members than this are not expanded at all (their condition dropped).
MAX_MEMBERS = 1 << 14
#: How many plies after a position the steps of a line are followed (``line`` steps that
#: each match once); the rest of the line holds somewhere later.
MAX_OFFSET = 8

#: Position flags the index stores, by the keyword that asks for them.
FLAGS: dict[Keyword, str] = {
    Keyword.WTM: "wtm",
    Keyword.BTM: "btm",
    Keyword.CHECK: "check",
    Keyword.MATE: "mate",
    Keyword.STALEMATE: "stalemate",
    Keyword.INITIAL: "initial",
}
#: The flags the game summary does not keep (they hold at some position of every game).
POSITION_ONLY_FLAGS = frozenset({"wtm", "btm", "initial"})


@attrs.frozen(repr=False)
class MoveFact(Record):
    """The move played from a position (none: the fact fails), as the index stores it.

    * ``pieces``, ``origin``: the piece moved is of ``pieces`` and leaves a square of
      ``origin`` (``move from X``, X evaluated where the move is played);
    * ``destination``, ``landing``: the move reaches a square of ``destination`` whose
      content before the move is of ``landing`` (``move to Y``; a castling king's move
      is let through whatever it names, as castling has two encodings);
    * ``taken``, ``taken_squares``: it takes a piece of ``taken`` standing on a square of
      ``taken_squares`` (``move capture Z``);
    * ``promote``: it promotes to a type of the set (colours matter);
    * ``enpassant``, ``castle``: it takes en passant, it castles.
    """

    pieces: TypeSet = ANYTHING
    origin: int = FULL
    destination: int = FULL
    landing: TypeSet = ANYTHING
    taken: TypeSet | None = None
    taken_squares: int = FULL
    promote: TypeSet | None = None
    enpassant: bool = False
    castle: bool = False

    def widened(self, other: MoveFact) -> MoveFact:
        """A fact that holds wherever this one or ``other`` does (the same but for
        squares: see :func:`hull`)."""
        return attrs.evolve(
            self,
            origin=self.origin | other.origin,
            destination=self.destination | other.destination,
            taken_squares=self.taken_squares | other.taken_squares,
        )

    def shape(self) -> MoveFact:
        return attrs.evolve(self, origin=0, destination=0, taken_squares=0)


@attrs.frozen(repr=False)
class Attack(Record):
    """Some piece of ``attacker_types`` on ``attacker_squares`` (pawns, knights or kings
    only: what they attack does not depend on the other pieces) attacks a square of
    ``target_squares`` whose content is of ``target_types``."""

    attacker_types: TypeSet
    attacker_squares: int
    target_types: TypeSet
    target_squares: int

    def widened(self, other: Attack) -> Attack:
        return attrs.evolve(
            self,
            attacker_squares=self.attacker_squares | other.attacker_squares,
            target_squares=self.target_squares | other.target_squares,
        )

    def shape(self) -> Attack:
        return attrs.evolve(self, attacker_squares=0, target_squares=0)


#: The piece types whose attacks the index can tell from their own squares.
LEAPERS = types_of("PNKpnk")


@attrs.frozen(repr=False)
class Alternative(Record):
    """Conditions that all hold for one position: its ``atoms`` and ``flags``, the
    ``moves`` facts of the move played from it; ``later`` pairs ``(k, conditions)`` of the
    position ``k`` plies after it along the main line (``k`` -1: the position before);
    ``elsewhere`` conditions each of some main-line position of the same game.  (Nested
    ones are flattened: ``later`` and ``elsewhere`` conditions have neither themselves.)"""

    atoms: tuple[Atom, ...] = ()
    flags: frozenset[str] = frozenset()
    moves: tuple[MoveFact, ...] = ()
    later: tuple[tuple[int, Alternative], ...] = ()
    elsewhere: tuple[Alternative, ...] = ()
    attacks: tuple[Attack, ...] = ()

    def __and__(self, other: Alternative) -> Alternative:
        return Alternative(
            self.atoms + other.atoms,
            self.flags | other.flags,
            self.moves + other.moves,
            _merged_later(self.later + other.later),
            tuple(dict.fromkeys(self.elsewhere + other.elsewhere)),
            self.attacks + other.attacks,
        )

    @property
    def here(self) -> Alternative:
        """The conditions of the position itself."""
        return Alternative(self.atoms, self.flags, self.moves, attacks=self.attacks)

    @property
    def says_something(self) -> bool:
        return bool(
            self.atoms or self.flags or self.moves or self.later or self.elsewhere or self.attacks
        )

    def shifted(self, plies: int) -> Alternative:
        """These conditions, said of the position ``plies`` after another one."""
        if plies == 0:
            return self
        later = [(plies, self.here)] if self.here.says_something else []
        later += [(plies + k, found) for k, found in self.later]
        return Alternative(later=_merged_later(later), elsewhere=self.elsewhere)

    def somewhere(self) -> Alternative:
        """These conditions, said of some position of the game: each position's part
        holds somewhere (weaker: they need not hold at positions so many plies apart)."""
        parts = [self.here] + [found for _k, found in self.later] + list(self.elsewhere)
        return Alternative(elsewhere=tuple(dict.fromkeys(p for p in parts if p.says_something)))


def _merged_later(
    later: Iterable[tuple[int, Alternative]],
) -> tuple[tuple[int, Alternative], ...]:
    """One condition per offset, in the order of the offsets."""
    found: dict[int, Alternative] = {}
    for k, alternative in later:
        found[k] = found[k] & alternative if k in found else alternative
    return tuple(sorted(found.items(), key=lambda item: item[0]))


@attrs.frozen(repr=False)
class ListNeed(Record):
    """Some examined main-line position satisfies one of ``alternatives`` (at least
    ``at_least`` positions do: the list's match count asks for that many)."""

    alternatives: tuple[Alternative, ...]
    at_least: int = 1


@attrs.frozen(repr=False)
class Necessity(Record):
    """What a game must show to match: every list's need, a game number in
    ``gamenumber`` (``(lo, hi)``, hi None: no limit) when the header says so, and
    (``tags``) tags the query's tag conditions accept."""

    lists: tuple[ListNeed, ...]
    gamenumber: tuple[int, int | None] | None = None
    tags: bool = False


#: No condition at all: holds everywhere.
_ANYTHING = (Alternative(),)

#: What the piece variables' values lie within (:func:`~cqllegacy.evaluator.lowering.
#: tag_bounds`, and what a conjunct ``x & S`` says beside it).
Bounds = Mapping[str, PieceSet]


def necessity(query: Query, *, variations: bool = False) -> Necessity | None:
    """The necessary conditions of ``query``, or None when the index cannot narrow it
    (it needs nothing the index can check).  Positions narrow only where the query
    looks at the main line alone (not ``variations``)."""
    analysis = analyse(query)
    needing = [found for found in analysis.lists if found.needs_a_match]
    lists: tuple[ListNeed, ...] = ()
    if not (variations or analysis.variations):
        bounds = piece_tag_bounds(query.tags)
        lists = tuple(
            ListNeed(alternatives, max(1, (found.source.matchcount or (1, None))[0]))
            for found in needing
            if (alternatives := position_alternatives(found.source.body, bounds)) is not None
        )
        if query.forms > 1:
            lists = _either_form(analysis, bounds)
    gamenumber = query.header.gamenumber
    tags = any(found.tag_conjuncts for found in needing)
    if not lists and gamenumber is None and not tags:
        return None
    return Necessity(lists, gamenumber, tags)


def _either_form(analysis: QueryAnalysis, bounds: Bounds) -> tuple[ListNeed, ...]:
    """The needs of a query of several forms (``Query.forms``): the k-th list of the
    form that matches needs its positions, so the k-th lists of all forms together
    need the union of their alternatives, at the least count among them (a list of
    some form that needs no match: nothing)."""
    size = len(analysis.lists) // analysis.query.forms
    needs = []
    for k in range(size):
        column = analysis.lists[k::size]
        if not all(found.needs_a_match for found in column):
            continue
        alternatives: list[Alternative] = []
        for found in column:
            own = position_alternatives(found.source.body, bounds)
            if own is None:
                break
            alternatives += own
        else:
            union = _bounded(tuple(dict.fromkeys(alternatives)))
            if union is not None:
                least = min(max(1, (f.source.matchcount or (1, None))[0]) for f in column)
                needs.append(ListNeed(union, least))
    return tuple(needs)


def piece_tag_bounds(tags: Sequence[ct.TagDeclaration]) -> dict[str, PieceSet]:
    """What the value of each legacy tag lies within: a piece of one of its types, a
    pawn of a colour the tag has a type a pawn promotes to, or (a tag with pawns) what a
    pawn promotes to (docs/semantics.md, S-tags: a tag ranges over the pieces of its
    types and the pawns that become one later, a piece keeps its identity when it
    promotes, and no other piece changes its type) — narrower than the lowering's
    :func:`~cqllegacy.evaluator.lowering.tag_bounds`, which keeps the colours only.

    >>> from cqllegacy.vocab.pieces import types_of
    >>> found = piece_tag_bounds([ct.TagDeclaration("c", types_of("Nk"))])
    >>> found["c"].types == types_of("NPk")
    True
    >>> piece_tag_bounds([ct.TagDeclaration("p", types_of("P"))])["p"].types == types_of("PNBRQ")
    True
    """
    out = tag_bounds(tags)
    for tag in tags:
        types = tag.types
        for colour in (chess.WHITE, chess.BLACK):
            pawn = piece_bit(colour, chess.PAWN)
            promoted = sum(piece_bit(colour, kind) for kind in chess.PIECE_TYPES[1:5])
            if tag.types & promoted:
                types |= pawn  # a pawn that becomes one later
            if tag.types & pawn:
                types |= promoted  # a pawn of the tag that has promoted
        out[tag.name] = PieceSet(out[tag.name].types & types, FULL)
    return out


def position_alternatives(
    node: Filter, bounds: Bounds | None = None
) -> tuple[Alternative, ...] | None:
    """Alternatives one of which holds at a position wherever ``node`` matches there;
    None when nothing can be said."""
    token = _KNOWN.set({})
    try:
        found = _bounded(_alternatives(node, bounds or {}))
    finally:
        _KNOWN.reset(token)
    if found is None or not all(alt.says_something for alt in found):
        return None
    return found


_Key = tuple[Filter, tuple[tuple[str, PieceSet], ...]]

#: The alternatives of the nodes met so far by one :func:`position_alternatives`: an
#: orbit's members share most of their steps (the queen staircase's 576 lines under
#: ``:shift :flip :flipcolor`` meet 5,761 nodes, 1,026 of them distinct).
_KNOWN: contextvars.ContextVar[dict[_Key, tuple[Alternative, ...]] | None] = (
    contextvars.ContextVar("_KNOWN", default=None)
)


def _alternatives(node: Filter, bounds: Bounds) -> tuple[Alternative, ...]:
    """As :func:`position_alternatives`, ``_ANYTHING`` standing for "nothing known"."""
    known = _KNOWN.get()
    if known is None:
        return _alternatives_of(node, bounds)
    key = (node, tuple(sorted(bounds.items())))
    found = known.get(key)
    if found is None:
        found = known[key] = _alternatives_of(node, bounds)
    return found


def _alternatives_of(node: Filter, bounds: Bounds) -> tuple[Alternative, ...]:
    """:func:`_alternatives` found afresh."""
    common = Alternative()
    choices: list[tuple[Alternative, ...]] = []
    parts = node.conjuncts()
    inner_bounds = dict(bounds)
    for part in parts:  # all hold at once: a variable lies within each bound said
        inner_bounds.update(_bounds_said(part, bounds))
    for part in parts:
        flag = _flag(part)
        if flag is not None:
            common = common & Alternative(flags=frozenset({flag}))
            continue
        if isinstance(part, Line):
            choices.append(_line_alternatives(part, _carried(inner_bounds)))
            continue
        if isinstance(part, Find) or (isinstance(part, InRange) and isinstance(part.value, Find)):
            common = common & _found_later(part, _carried(inner_bounds))
            continue
        inner = _inner_alternatives(part, bounds)
        if inner is not None:
            # A disjunction: its members are looked into (what a member says of a piece
            # variable beside it is not carried into them, as their lines go elsewhere).
            choices.append(inner)
            continue
        relaxed = _relaxed(part, inner_bounds)
        if relaxed is None:
            continue
        if relaxed is not part:
            # What holds where the variables lie within their bounds.
            choices.append(_alternatives(relaxed, {}))
            continue
        attacked = _king_attacked(part)
        if attacked is not None:
            choices.append(attacked)
        leaping = _leaper_attack(part)
        if leaping is not None:
            common = common & Alternative(attacks=(leaping,))
        moves = _move_alternative(part)
        if moves is not None:
            common = common & moves
        atoms = necessary_atoms(part)
        if atoms:
            common = common & Alternative(atoms)
    useful = [choice for choice in choices if _useful(choice) is not None]
    # One disjunction is enough to narrow; the narrowest (fewest alternatives) is kept,
    # the others are left out (those of one alternative are all kept).
    for single in [choice for choice in useful if len(choice) == 1]:
        common = common & single[0]
    several = [choice for choice in useful if len(choice) > 1]
    best = min(several, key=len, default=_ANYTHING)
    found = tuple(common & alt for alt in best)
    # A position has one side to move: an alternative that asks for both never holds.
    possible = tuple(alt for alt in found if not {"wtm", "btm"} <= alt.flags)
    return possible or found


def _attack_sides(part: Filter) -> tuple[PieceSet, PieceSet] | None:
    """What the attackers and the attacked of ``X attacks Y``, ``Y attackedby X`` or a
    count of either of at least 1 lie within, when some attack is needed."""
    if isinstance(part, InRange) and (part.lo or 0) >= 1:
        # A count of at least 1, or a sum of counts (one of them at least 1): one of
        # the attacks counted, so some attacker of all of them attacks one of all targets.
        terms = _counted(part.value)
        if terms is None:
            return None
    else:
        terms = [part]
    types, squares, target_types, target_squares = 0, 0, 0, 0
    for term in terms:
        if isinstance(term, Attacks):
            attackers, attacked = _set_bound(term.left), _set_bound(term.right)
        elif isinstance(term, AttackedBy):
            attacked, attackers = _set_bound(term.left), _set_bound(term.right)
        else:
            return None
        if attackers is None or attacked is None:
            return None
        types, squares = types | attackers.types, squares | attackers.squares
        target_types |= attacked.types
        target_squares |= attacked.squares
    # Empty squares attack nothing.
    return PieceSet(types & ANY_PIECE, squares), PieceSet(target_types, target_squares)


def _counted(value: Filter) -> list[Filter] | None:
    """The filters whose counts add up to ``value`` (None: it is no such sum)."""
    if isinstance(value, Count):
        return [value.arg]
    if isinstance(value, Arith) and value.op is ArithOp.ADD:
        left, right = _counted(value.left), _counted(value.right)
        return None if left is None or right is None else left + right
    return None


def _leaper_attack(part: Filter) -> Attack | None:
    """The attack ``part`` needs, when its attackers are pawns, knights or kings."""
    sides = _attack_sides(part)
    if sides is None:
        return None
    attackers, attacked = sides
    if not attackers.types or attackers.types & ~LEAPERS:
        return None
    return Attack(attackers.types, attackers.squares, attacked.types, attacked.squares)


def _king_attacked(part: Filter) -> tuple[Alternative, ...] | None:
    """What ``X attacks k`` (or ``#(X attacks k)`` of at least 1) says when X are white
    pieces and k the black king (or the other way round): with Black to move, Black is in
    check; White to move is left in (only a set-up position could have it so)."""
    sides = _attack_sides(part)
    if sides is None:
        return None
    attackers, attacked = sides
    if not attackers.types:
        return None
    for king, pieces, side, other in (
        (types_of("k"), WHITE_PIECES, "btm", "wtm"),
        (types_of("K"), BLACK_PIECES, "wtm", "btm"),
    ):
        if attacked.types == king and not attackers.types & ~pieces:
            # Check is of the one king python-chess takes: a set-up position with two
            # kings of a colour is let through.
            return (
                Alternative(flags=frozenset({side, "check"})),
                Alternative(flags=frozenset({other})),
                Alternative((Atom(king, FULL, 2, None),)),
            )
    return None


def _relaxed(part: Filter, bounds: Bounds) -> Filter | None:
    """``part`` itself when it reads no variable, else what holds wherever it does and
    reads none (None: nothing)."""
    if not any(isinstance(n, ct.VARIABLES) for n in part.walk()):
        return part
    return relaxed_necessity(part, bounds)


def _bounds_said(part: Filter, bounds: Bounds) -> dict[str, PieceSet]:
    """What a conjunct ``x & S…`` says of the value of the piece variable ``x``."""
    if not isinstance(part, Intersection):
        return {}
    items = meaningful(part.items)
    names = [item.name for item in items if isinstance(item, PieceVariable)]
    sets = [item for item in items if isinstance(item, PieceSet)]
    if not names or not sets:
        return {}
    said = {}
    for name in names:
        bound = bounds.get(name, PieceSet(ANYTHING, FULL))
        for more in sets:
            bound = PieceSet(bound.types & more.types, bound.squares & more.squares)
        said[name] = bound
    return said


def _carried(bounds: Bounds) -> dict[str, PieceSet]:
    """What the piece variables lie within at the positions after the one ``bounds`` are
    said of (a ``line`` and a ``find`` only look forward; ``move previous`` with a
    variable says nothing here): the same piece may have moved (any square), and a pawn
    promoted."""
    out = {}
    for name, bound in bounds.items():
        types = bound.types
        for colour in (chess.WHITE, chess.BLACK):
            if types & piece_bit(colour, chess.PAWN):
                types |= sum(piece_bit(colour, kind) for kind in chess.PIECE_TYPES[1:5])
        out[name] = PieceSet(types, FULL)
    return out


def _line_alternatives(line: Line, bounds: Bounds) -> tuple[Alternative, ...]:
    """What a ``line`` needs: the steps that each match once, from the first, at the
    position and the next ones (up to :data:`MAX_OFFSET`); every later step that must
    match at least once somewhere after them."""
    choices: tuple[Alternative, ...] = (Alternative(),)
    offset: int | None = 0
    for step in line.steps:
        if step.lo < 1:
            offset = None
            continue
        if isinstance(step.filter, LineGroup):
            # A group repeated: its steps hold somewhere later, in an order not kept.
            for inner in step.filter.steps:
                if inner.lo >= 1 and not isinstance(inner.filter, LineGroup):
                    choices = _conjoined(choices, _somewhere(inner.filter, bounds))
            offset = None
            continue
        found = _alternatives(step.filter, bounds)
        if offset is not None and offset <= MAX_OFFSET:
            choices = _conjoined(choices, tuple(alt.shifted(offset) for alt in found))
        else:
            choices = _conjoined(choices, _somewhere_of(found))
        if offset is not None:
            offset = offset + 1 if (step.lo, step.hi) == (1, 1) else None
    return choices


def _conjoined(
    choices: tuple[Alternative, ...], more: tuple[Alternative, ...]
) -> tuple[Alternative, ...]:
    """Each of ``choices`` and each of ``more`` (all combinations), or ``choices`` alone
    when ``more`` says nothing or the combinations would be too many."""
    if _useful(more) is None or len(choices) * len(more) > MAX_ALTERNATIVES:
        return choices
    return tuple(dict.fromkeys(a & b for a in choices for b in more))


def _somewhere(node: Filter, bounds: Bounds) -> tuple[Alternative, ...]:
    return _somewhere_of(_alternatives(node, bounds))


def _somewhere_of(found: tuple[Alternative, ...]) -> tuple[Alternative, ...]:
    """``found`` said of some position of the game: only a single alternative is kept
    (a disjunction somewhere else is not expressed)."""
    if len(found) != 1 or not found[0].says_something:
        return _ANYTHING
    return (found[0].somewhere(),)


def _found_later(part: Find | InRange, bounds: Bounds) -> Alternative:
    """``find X`` (or ``find all X`` counted at least once): X holds at this position or
    a later one of the main line.  A bare ``find all X`` says nothing: it counts, and a
    count of none still matches."""
    if isinstance(part, InRange):
        if not (isinstance(part.value, Find) and part.value.all and (part.lo or 0) >= 1):
            return Alternative()
        part = part.value
    elif part.all:
        return Alternative()
    return _somewhere(part.arg, bounds)[0]


def _move_alternative(part: Filter) -> Alternative | None:
    """What the move facts of a ``move`` conjunct say (None: it is no move, or says
    nothing the index keeps); ``move previous`` of the position before."""
    while isinstance(part, LegacyOnly):
        part = part.filter
    if not isinstance(part, Move):
        return None
    fact = _move_fact(part)
    if fact is None:
        return None
    if part.previous:
        # The move that led here is the one played from the position before, the
        # designators evaluated there (their atoms too).
        atoms = necessary_atoms(attrs.evolve(part, previous=False))
        return Alternative(atoms, moves=(fact,)).shifted(-1)
    return Alternative(moves=(fact,))


def _move_fact(node: Move) -> MoveFact | None:
    """The facts of ``node`` the index keeps (None: none, as for a bare ``move``, which
    a null move also matches)."""
    origin, destination, taken = (
        _set_bound(arg) if arg is not None else None for arg in (node.from_, node.to, node.capture)
    )
    says = (
        node.from_ is not None
        or node.to is not None
        or node.capture is not None
        or node.promote is not None
        or node.enpassant
        or node.castle is not None
    )
    if not says:
        return None
    # A null move matches none of these demands: even unknown designators need a move.
    return MoveFact(
        pieces=ANYTHING if origin is None else origin.types,
        origin=FULL if origin is None else origin.squares,
        destination=FULL if destination is None else destination.squares,
        landing=ANYTHING if destination is None else destination.types,
        taken=None if node.capture is None else (ANYTHING if taken is None else taken.types),
        taken_squares=FULL if taken is None else taken.squares,
        promote=node.promote,
        enpassant=node.enpassant,
        castle=node.castle is not None,
    )


def _set_bound(node: Filter) -> PieceSet | None:
    """A piece designator whose value holds the value of the set filter ``node`` (None:
    none known)."""
    if isinstance(node, PieceSet):
        return node
    if isinstance(node, LegacyOnly):
        return _set_bound(node.filter)
    if isinstance(node, Compound) and len(meaningful(node.items)) == 1:
        return _set_bound(meaningful(node.items)[0])
    if isinstance(node, Intersection | Union):
        found = [_set_bound(item) for item in meaningful(node.items)]
        if isinstance(node, Union):
            if not found or any(b is None for b in found):
                return None
            types, squares = 0, 0
            for bound in found:
                assert bound is not None
                types, squares = types | bound.types, squares | bound.squares
            return PieceSet(types, squares)
        known = [b for b in found if b is not None]
        return common_bound(known) if known else None
    return None


def _inner_alternatives(part: Filter, bounds: Bounds) -> tuple[Alternative, ...] | None:
    """What a conjunct that yields no atoms of its own still says: the members of a
    disjunction (widened to their hull when they are many); None when nothing."""
    members = list(itertools.islice(disjunction_members(part), MAX_MEMBERS + 1))
    if len(members) < 2 or len(members) > MAX_MEMBERS:
        return None
    found: list[Alternative] = []
    for member in dict.fromkeys(members):
        alternatives = _useful(_member_alternatives(member, bounds))
        if alternatives is None:
            return None
        found.extend(alternatives)
        if len(found) > 4 * MAX_ALTERNATIVES:
            found = list(hull(found))
    return _bounded(tuple(dict.fromkeys(found)))


def _bounded(found: tuple[Alternative, ...]) -> tuple[Alternative, ...] | None:
    """``found``, or its hull when they are too many; None when that is still too many."""
    if len(found) > MAX_ALTERNATIVES:
        found = hull(found)
    return found if len(found) <= MAX_ALTERNATIVES else None


def hull(alternatives: Sequence[Alternative]) -> tuple[Alternative, ...]:
    """Fewer alternatives, one of which holds wherever one of ``alternatives`` does:
    those alike but for their squares (the images of one pattern under ``:shift``) become
    one, whose atoms asking for pieces and whose move facts take the union of their
    squares.  An atom asking for at most some pieces (``not Q``, ``#P == 4``) is kept
    only where all its squares agree (a union would ask for more), its upper limit
    dropped otherwise.  What the squares of every member said of a leaper's attacks (the
    knight of a fork under ``:shift`` attacks the king) is kept as an :class:`Attack`
    between the unions; an attack only some members say is dropped.

    >>> from cqllegacy.evaluator.testing import pd
    >>> a, b = (Alternative(necessary_atoms(pd(t))) for t in ("Ka1", "Kb1"))
    >>> [alt.atoms[0].squares for alt in hull([a, b])]
    [3]
    >>> forks = [Alternative(necessary_atoms(pd(f"N{s}")) + necessary_atoms(pd(f"k{k}")))
    ...          for s, k in (("d4", "c6"), ("e4", "f6"))]
    >>> [chess.square_name(s) for s in chess.scan_forward(hull(forks)[0].attacks[0].target_squares)]
    ['c6', 'f6']
    """
    groups: dict[Alternative, list[Alternative]] = {}
    for alternative in alternatives:
        groups.setdefault(_shape(alternative), []).append(alternative)
    return tuple(
        members[0] if len(members) == 1 else functools.reduce(_widened, map(_with_leaps, members))
        for members in groups.values()
    )


def _atom_leaps(alternative: Alternative) -> frozenset[tuple[int, int]]:
    """The pairs ``(i, j)`` of atoms of ``alternative`` where whatever stands on atom
    ``i``'s squares (pawns, knights or kings: leapers) attacks every square of atom
    ``j``'s: both atoms asking for some piece, the alternative says that ``i``'s piece
    attacks ``j``'s (a knight's fork under ``:shift``, its king and queen each a knight's
    jump from it).

    >>> from cqllegacy.evaluator.testing import pd
    >>> fork = Alternative(necessary_atoms(pd("Nd4")) + necessary_atoms(pd("k[c6,e6]")))
    >>> sorted(_atom_leaps(fork))
    [(0, 1)]
    """
    found = []
    for i, leaper in enumerate(alternative.atoms):
        reach = _leaper_reach(leaper)
        if not reach:
            continue
        for j, target in enumerate(alternative.atoms):
            if i != j and target.lo >= 1 and target.squares and not target.squares & ~reach:
                found.append((i, j))
    return frozenset(found)


def _leaper_reach(atom: Atom) -> int:
    """The squares every piece ``atom`` can ask for attacks from every one of its
    squares (0 unless it asks for some piece, all leapers)."""
    if atom.lo < 1 or not atom.types or atom.types & ~LEAPERS or not atom.squares:
        return 0
    reach = chess.BB_ALL
    for colour, kind in piece_types_in(atom.types):
        for square in chess.scan_forward(atom.squares):
            reach &= _leaps_from(colour, kind, square)
    return reach


def _leaps_from(colour: chess.Color, kind: chess.PieceType, square: chess.Square) -> int:
    """The squares a pawn, knight or king of ``colour`` on ``square`` attacks."""
    if kind == chess.PAWN:
        return chess.BB_PAWN_ATTACKS[colour][square]
    return (chess.BB_KNIGHT_ATTACKS if kind == chess.KNIGHT else chess.BB_KING_ATTACKS)[square]


def _with_leaps(alternative: Alternative) -> Alternative:
    """``alternative`` with the attacks its atoms' squares imply (:func:`_atom_leaps`)
    said outright, so that they outlive the widening of its squares."""
    atoms = alternative.atoms
    implied = tuple(
        Attack(atoms[i].types, atoms[i].squares, atoms[j].types, atoms[j].squares)
        for i, j in sorted(_atom_leaps(alternative))
    )
    return attrs.evolve(alternative, attacks=alternative.attacks + implied)


def _shape(alternative: Alternative) -> Alternative:
    """``alternative`` with its squares left out: the key under which :func:`hull`
    joins alternatives."""
    return Alternative(
        tuple(_atom_shape(atom) for atom in alternative.atoms),
        alternative.flags,
        tuple(fact.shape() for fact in alternative.moves),
        tuple((k, _shape(found)) for k, found in alternative.later),
        tuple(_shape(found) for found in alternative.elsewhere),
    )


def _atom_shape(atom: Atom) -> Atom:
    # Atoms that ask for at least some pieces differ only by squares; the others must
    # agree on them too.
    return atom if atom.lo < 1 else Atom(atom.types, 0, atom.lo, None)


def _widened(one: Alternative, other: Alternative) -> Alternative:
    """Holds wherever ``one`` or ``other`` (of the same shape) does."""
    return Alternative(
        tuple(_atom_widened(a, b) for a, b in zip(one.atoms, other.atoms, strict=True)),
        one.flags,
        tuple(a.widened(b) for a, b in zip(one.moves, other.moves, strict=True)),
        tuple((k, _widened(a, b)) for (k, a), (_k, b) in zip(one.later, other.later, strict=True)),
        tuple(_widened(a, b) for a, b in zip(one.elsewhere, other.elsewhere, strict=True)),
        _attacks_widened(one.attacks, other.attacks),
    )


def _attacks_widened(one: Sequence[Attack], other: Sequence[Attack]) -> tuple[Attack, ...]:
    """Attacks one of which holds wherever ``one``'s or ``other``'s all do: per shape
    (attacker and target types) both say, the union of their squares; a shape only one
    says is left out."""
    theirs = _by_shape(other)
    ours = _by_shape(one)
    return tuple(ours[key].widened(theirs[key]) for key in ours if key in theirs)


def _by_shape(attacks: Sequence[Attack]) -> dict[Attack, Attack]:
    # Two attacks of one shape both hold; their widening holds too.
    found: dict[Attack, Attack] = {}
    for attack in attacks:
        key = attack.shape()
        found[key] = found[key].widened(attack) if key in found else attack
    return found


def _atom_widened(one: Atom, other: Atom) -> Atom:
    if one == other:
        return one
    # Both ask for at least lo pieces (shapes agree): that many stand on the union, but
    # perhaps more than hi.
    return Atom(one.types, one.squares | other.squares, one.lo, None)


def _member_alternatives(member: Filter, bounds: Bounds) -> tuple[Alternative, ...]:
    flag = _flag(member)
    if flag is not None:
        return (Alternative(flags=frozenset({flag})),)
    return _alternatives(member, bounds)


def _useful(alternatives: Sequence[Alternative]) -> tuple[Alternative, ...] | None:
    """``alternatives`` when each says something (one that says nothing admits all)."""
    if not alternatives or not all(alt.says_something for alt in alternatives):
        return None
    return tuple(alternatives)


def _flag(node: Filter) -> str | None:
    while isinstance(node, LegacyOnly):
        node = node.filter
    if isinstance(node, Compound) and len(node.items) == 1:
        return _flag(node.items[0])
    if isinstance(node, Simple):
        return FLAGS.get(node.keyword)
    return None
