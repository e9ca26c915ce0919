"""The SQL that asks an index for candidate games (:func:`candidate_query`): per list of
the query, the alternatives its necessary conditions allow, each as a test of the
``summary`` table (a cheap first rejection) and of the ``positions`` table (atoms, moves,
attacks and flags of consecutive positions)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs
import chess

from cqllegacy.evaluator.necessary import (
    POSITION_ONLY_FLAGS,
    Alternative,
    Attack,
    ListNeed,
    MoveFact,
    Necessity,
    hull,
)
from cqllegacy.evaluator.operators import Atom
from cqllegacy.indexing.records import (
    BOARD_FIELDS,
    CHECK,
    MATE,
    MOVE_FIELDS,
    PLACEMENT,
    STALEMATE,
    STATE_FIELDS,
    WHITE_TO_MOVE,
)
from cqllegacy.vocab.pieces import ANY_PIECE, ANYTHING, EMPTY_BIT, piece_bit

__all__ = [
    "MAX_LIST_SQL",
    "alternative_sql",
    "asks_positions",
    "atom_sql",
    "attack_sql",
    "candidate_query",
    "column",
    "leaper_attacks_sql",
    "move_sql",
    "summary_condition",
    "summary_decides",
    "summary_sql",
]


#: The flag bit each flag name of :mod:`~cqllegacy.evaluator.necessary` asks for.
_FLAG_BITS = {"check": CHECK, "mate": MATE, "stalemate": STALEMATE}


_FULL = (1 << 64) - 1


#: The TypeSet bits of the twelve coloured piece types (the summary's unions).
_PIECE_BITS = (1 << 12) - 1


def column(name: str, offset: int = 0) -> str:
    """The column ``name`` of the position ``offset`` plies after the one asked about
    (before it when negative), as :func:`_rows` names it."""
    if offset == 0:
        return name
    return f"at_{'n' if offset > 0 else 'p'}{abs(offset)}_{name}"


_OFFSET_COLUMN = re.compile(r"\bat_([np])(\d+)_(\w+)\b")


def _type_squares(types: int, offset: int = 0) -> str | None:
    """The squares whose content is in ``types`` (None: every square)."""
    white, black = column("white", offset), column("black", offset)
    parts: list[str] = []
    for colour, first in ((white, 0), (black, 6)):
        bits = [bit for bit in range(first, first + 6) if types >> bit & 1]
        if len(bits) == 6:
            parts.append(colour)
        elif bits:
            kinds = " | ".join(column(PLACEMENT[bit % 6], offset) for bit in bits)
            parts.append(f"(({kinds}) & {colour})")
    if types & EMPTY_BIT:
        if parts == [white, black]:
            return None
        parts.append(f"(~({white} | {black}))")
    return " | ".join(parts) if parts else "0::UBIGINT"


def _literal(squares: int) -> str:
    return f"{squares & _FULL}::UBIGINT"


def atom_sql(atom: Atom, offset: int = 0) -> str:
    """The atom as a condition on a position row (of the position ``offset`` plies
    later)."""
    present = _type_squares(atom.types, offset)
    squares = atom.squares & _FULL
    if present is None:
        found = _literal(squares)
    elif squares == _FULL:
        found = f"({present})"
    else:
        found = f"(({present}) & {_literal(squares)})"
    lo, hi = max(atom.lo, 0), atom.hi
    if lo == 1 and hi is None:
        return f"{found} <> 0"
    if lo == 0 and hi == 0:
        return f"{found} = 0"
    if hi is None:
        return f"bit_count({found}) >= {lo}"
    return f"bit_count({found}) BETWEEN {lo} AND {hi}"


def _flags_sql(flags: frozenset[str], offset: int = 0) -> list[str]:
    column_name = column("flags", offset)
    out = []
    for flag in sorted(flags):
        if flag == "initial":
            out.append(f"{column('ply', offset)} = 0")
        elif flag == "wtm":
            out.append(f"({column_name} & {WHITE_TO_MOVE}) <> 0")
        elif flag == "btm":
            out.append(f"({column_name} & {WHITE_TO_MOVE}) = 0")
        else:
            out.append(f"({column_name} & {_FLAG_BITS[flag]}) <> 0")
    return out


_KINGS = piece_bit(chess.WHITE, chess.KING) | piece_bit(chess.BLACK, chess.KING)


_PAWNS = piece_bit(chess.WHITE, chess.PAWN) | piece_bit(chess.BLACK, chess.PAWN)


def _on(squares: int, square_column: str) -> str:
    """The square in ``square_column`` (one that is there) is one of ``squares``."""
    return (
        f"(({_literal(squares)} >> CAST(greatest({square_column}, 0) AS UBIGINT)) "
        "& 1::UBIGINT) <> 0"
    )


def move_sql(fact: MoveFact, offset: int = 0) -> str:
    """The move fact as a condition on the move columns of a position row (of the
    position ``offset`` plies later): the move played from it, none at the last position
    or before a null move (``move_from`` -1)."""

    def col(name: str) -> str:
        return column(name, offset)

    piece, to, taken, ep = col("move_piece"), col("move_to"), col("move_capture"), col("ep")
    kings = f"({piece} & {_KINGS}) <> 0"
    parts = [f"{col('move_from')} >= 0"]
    if fact.pieces & ANY_PIECE != ANY_PIECE:
        parts.append(f"({piece} & {fact.pieces & ANY_PIECE}) <> 0")
    if fact.origin & _FULL != _FULL:
        parts.append(_on(fact.origin, col("move_from")))
    destination = []
    if fact.destination & _FULL != _FULL:
        destination.append(_on(fact.destination, to))
    if fact.landing != ANYTHING:
        # What stood on the destination: the piece taken, but for en passant (empty).
        landing = []
        if fact.landing & ANY_PIECE:
            landing.append(f"({taken} & {fact.landing & ANY_PIECE}) <> 0")
        if fact.landing & EMPTY_BIT:
            landing.append(f"{taken} = 0 OR {to} = {ep}")
        destination.append(_any(landing) if landing else "FALSE")
    if destination:
        # Castling names its destination two ways (the king's square or the rook's):
        # a king's move is let through.
        parts.append(f"({' AND '.join(destination)} OR {kings})")
    if fact.taken is not None:
        parts.append(f"{taken} <> 0")
        if fact.taken & ANY_PIECE != ANY_PIECE:
            parts.append(f"({taken} & {fact.taken & ANY_PIECE}) <> 0")
        if fact.taken_squares & _FULL != _FULL:
            # En passant takes beside the destination.
            parts.append(f"({_on(fact.taken_squares, to)} OR {to} = {ep})")
    if fact.promote is not None:
        parts.append(_promotion_sql(fact.promote, col("move_promotion"), col("flags")))
    if fact.enpassant:
        parts.append(f"{to} = {ep} AND ({piece} & {_PAWNS}) <> 0")
    if fact.castle:
        parts.append(kings)
    return "(" + " AND ".join(f"({part})" for part in parts) + ")"


def _promotion_sql(types: int, promotion: str, flags: str) -> str:
    """The move promotes to one of ``types`` (a pawn of the side to move)."""
    sides = []
    for colour, to_move in ((chess.WHITE, "<> 0"), (chess.BLACK, "= 0")):
        kinds = [str(kind) for kind in chess.PIECE_TYPES if types & piece_bit(colour, kind)]
        if kinds:
            sides.append(
                f"({promotion} IN ({', '.join(kinds)}) AND ({flags} & {WHITE_TO_MOVE}) {to_move})"
            )
    return _any(sides) if sides else "FALSE"


def _here_sql(alternative: Alternative, offset: int = 0) -> list[str]:
    """The conditions of one position's atoms, flags, attacks and move facts (an atom
    a move fact implies left out: its columns would be read for nothing)."""
    return (
        [
            atom_sql(atom, offset)
            for atom in alternative.atoms
            if not any(_moves_off(fact, atom) for fact in alternative.moves)
        ]
        + _flags_sql(alternative.flags, offset)
        + [attack_sql(attack, offset) for attack in alternative.attacks]
        + [move_sql(fact, offset) for fact in alternative.moves]
    )


def _moves_off(fact: MoveFact, atom: Atom) -> bool:
    """Whether the move ``fact`` asks for leaves from a square where ``atom`` holds:
    ``atom`` asks for some piece of the moved piece's types on its origin squares.

    >>> from cqllegacy.vocab.pieces import types_of
    >>> queen_moves = MoveFact(pieces=types_of("Q"), origin=chess.BB_A2)
    >>> _moves_off(queen_moves, Atom(types_of("Q"), chess.BB_A2 | chess.BB_B2))
    True
    >>> _moves_off(queen_moves, Atom(types_of("q"), chess.BB_A2))
    False
    """
    moved = fact.pieces & ANY_PIECE
    return (
        atom.lo <= 1
        and atom.hi is None
        and bool(moved)
        and not moved & ~atom.types
        and not fact.origin & ~atom.squares
    )


_NOT_A, _NOT_AB = 0xFEFEFEFEFEFEFEFE, 0xFCFCFCFCFCFCFCFC


_NOT_H, _NOT_GH = 0x7F7F7F7F7F7F7F7F, 0x3F3F3F3F3F3F3F3F


#: The steps of each leaper as (change of square number, the squares a step can land on
#: without wrapping round the board's edge), by python-chess piece type and colour.
_STEPS = {
    chess.KNIGHT: ((17, _NOT_A), (15, _NOT_H), (10, _NOT_AB), (6, _NOT_GH),
                   (-17, _NOT_H), (-15, _NOT_A), (-10, _NOT_GH), (-6, _NOT_AB)),
    chess.KING: ((8, _FULL), (-8, _FULL), (1, _NOT_A), (-1, _NOT_H),
                 (9, _NOT_A), (7, _NOT_H), (-7, _NOT_A), (-9, _NOT_H)),
}  # fmt: skip


_PAWN_STEPS = {chess.WHITE: ((7, _NOT_H), (9, _NOT_A)), chess.BLACK: ((-7, _NOT_A), (-9, _NOT_H))}


def leaper_attacks_sql(pieces: str, kind: int, colour: bool) -> str:
    """The squares the pieces ``pieces`` (a bitboard expression) of python-chess type
    ``kind`` (pawn, knight or king) and ``colour`` attack."""
    steps = _PAWN_STEPS[colour] if kind == chess.PAWN else _STEPS[kind]
    parts = []
    for step, landing in steps:
        if step > 0:
            # DuckDB refuses a shift that overflows: the bits that would leave go first.
            moved = f"(({pieces} & {_literal(_FULL >> step)}) << {step})"
        else:
            moved = f"({pieces} >> {-step})"
        parts.append(f"({moved} & {_literal(landing)})")
    return "(" + " | ".join(parts) + ")"


def attack_sql(attack: Attack, offset: int = 0) -> str:
    """Some attacker of ``attack`` attacks one of its targets, on a position row."""
    targets = _type_squares(attack.target_types, offset)
    squares = _literal(attack.target_squares)
    target = squares if targets is None else f"(({targets}) & {squares})"
    found = []
    for colour, name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
        for kind in (chess.PAWN, chess.KNIGHT, chess.KING):
            if attack.attacker_types & piece_bit(colour, kind):
                kind_column = column(PLACEMENT[kind - 1], offset)
                pieces = (
                    f"({kind_column} & {column(name, offset)} & "
                    f"{_literal(attack.attacker_squares)})"
                )
                found.append(f"({leaper_attacks_sql(pieces, kind, colour)} & {target}) <> 0")
    return _any(found) if found else "FALSE"


def alternative_sql(alternative: Alternative) -> str:
    """The alternative as a condition on a position row and the rows after (or before)
    it: all but its ``elsewhere`` conditions."""
    parts = _here_sql(alternative)
    for offset, found in alternative.later:
        parts += _here_sql(found, offset)
    return "(" + " AND ".join(parts) + ")" if parts else "TRUE"


def summary_sql(alternative: Alternative) -> str:
    """What the game's summary must show for ``alternative`` to hold at some position:
    each piece it needs present (here, at the positions later or before, elsewhere)
    stood somewhere on its squares, each flag but the side to move was seen."""
    return _summary_conjunction(_summary_terms(alternative))


#: A term of a summary test: the piece types' union ever met ``squares`` (the union's
#: SQL, the squares), or a flag's own SQL (and no squares).
_Term = tuple[str, int | None]


def _summary_terms(alternative: Alternative) -> frozenset[_Term]:
    terms: list[_Term] = []
    every = [alternative.here, *(found for _k, found in alternative.later)]
    for part in every + list(alternative.elsewhere):
        for atom in part.atoms:
            if atom.lo < 1 or atom.types & EMPTY_BIT or not atom.types:
                continue
            union = " | ".join(f"u{bit}" for bit in range(12) if atom.types >> bit & 1)
            terms.append((union, atom.squares & _FULL))
        terms += [(flag, None) for flag in _flags_sql(part.flags - POSITION_ONLY_FLAGS)]
    return frozenset(terms)


def _summary_conjunction(terms: frozenset[_Term]) -> str:
    parts = sorted(
        f"(({text}) & {_literal(squares)}) <> 0" if squares is not None else text
        for text, squares in terms
    )
    return "(" + " AND ".join(parts) + ")" if parts else "TRUE"


def summary_condition(alternatives: Sequence[Alternative]) -> str:
    """The summary's test of a list: some alternative may hold.  Alternatives that differ
    in the squares of one union only are asked as one, on the union of those squares
    (``U & a <> 0 OR U & b <> 0`` is ``U & (a | b) <> 0``): an orbit's members mostly
    differ so, and DuckDB's planner took 0.15 s over the 128 members of a shifted
    Appendix C script, whose positions it then read in 0.01 s."""
    return _any([_summary_conjunction(terms) for terms in merged_terms(alternatives)])


def merged_terms(alternatives: Sequence[Alternative]) -> list[frozenset[_Term]]:
    """The summary terms of ``alternatives``, those that differ in the squares of one
    union only merged, until no two do."""
    merged = list(dict.fromkeys(_summary_terms(alt) for alt in alternatives))
    while True:
        again = _merged_once(merged)
        if len(again) == len(merged):
            return merged
        merged = again


def _merged_once(alternatives: list[frozenset[_Term]]) -> list[frozenset[_Term]]:
    """One pass: each alternative merged into the first one kept before it that differs
    from it in one term's squares only."""
    kept: list[frozenset[_Term] | None] = []
    present: set[frozenset[_Term]] = set()
    where: dict[tuple[frozenset[_Term], str], int] = {}
    for terms in alternatives:
        found = next((key for key in _keys(terms) if key in where), None)
        if found is None:
            where.update((key, len(kept)) for key in _keys(terms))
            kept.append(terms)
            present.add(terms)
            continue
        index = where[found]
        before = kept[index]
        assert before is not None
        rest, union = found
        (squares,) = [s for text, s in before - rest if text == union]
        (more,) = [s for text, s in terms - rest if text == union]
        assert squares is not None and more is not None
        joined = rest | {(union, squares | more)}
        if joined == before:
            continue
        for key in _keys(before):
            if where.get(key) == index:
                del where[key]
        present.discard(before)
        if joined in present:
            kept[index] = None
            continue
        kept[index] = joined
        present.add(joined)
        # A key another alternative holds stays its own: the next pass merges them.
        for key in _keys(joined):
            where.setdefault(key, index)
    return [terms for terms in kept if terms is not None]


def _keys(terms: frozenset[_Term]) -> list[tuple[frozenset[_Term], str]]:
    """Per squares term of ``terms``: the other terms and its union."""
    return [(terms - {term}, term[0]) for term in terms if term[1] is not None]


def _any(conditions: Sequence[str]) -> str:
    unique = list(dict.fromkeys(conditions))
    if "TRUE" in unique:
        return "TRUE"
    return "(" + " OR ".join(f"({condition})" for condition in unique) + ")"


def candidate_query(
    need: Necessity,
    games_before: int,
    *,
    positions: bool = True,
    sample: bool = False,
    games: tuple[int, int] | None = None,
) -> tuple[str, list[object]]:
    """SQL (and its parameters) for the numbers of the candidate games, ascending.

    ``positions`` False leaves the positions out (the summary alone narrows, which admits
    more games); ``sample`` leaves out the games that do not read cleanly; ``games``
    (first, last) asks about those games of the file only.
    """
    summary = [summary_condition(found.alternatives) for found in need.lists]
    where_games = " AND ".join(summary) if summary else "TRUE"
    parameters: list[object] = []
    if need.gamenumber is not None:
        lo, hi = need.gamenumber
        where_games += " AND game >= ?"
        parameters.append(lo - games_before)
        if hi is not None:
            where_games += " AND game <= ?"
            parameters.append(hi - games_before)
    where_games += _between("game", games)
    # The summary rejects most games; the positions of the others are asked, list by
    # list, for a position where one of the list's alternatives holds (unless the
    # summary alone already says so).
    parts = ["SELECT game FROM passed"]
    if positions:
        parts += [_list_query(found) for found in need.lists if not summary_decides(found)]
        if games is not None:
            # The positions' zone maps skip the blocks of other games.
            parts = [part.replace(_SEMI, _SEMI + _between("positions.game", games))
                     for part in parts]  # fmt: skip
    clean = " INTERSECT ".join(f"({part})" for part in parts)
    unclean = (
        ""
        if sample
        else f" UNION (SELECT game FROM games WHERE NOT clean{_between('game', games)})"
    )
    sql = (
        f"WITH passed AS MATERIALIZED (SELECT game FROM summary WHERE {where_games}) "
        f"SELECT game FROM (({clean}){unclean}) ORDER BY game"
    )
    return sql, parameters


def _between(game: str, games: tuple[int, int] | None) -> str:
    """The condition that ``game`` is in the range ``games`` (none: every game)."""
    return "" if games is None else f" AND {game} BETWEEN {int(games[0])} AND {int(games[1])}"


_SEMI = "positions SEMI JOIN passed ON positions.game = passed.game"

#: The rows of mates and stalemates of the games that passed the summary (a copy of
#: theirs in ``positions``, under its name: the conditions name its columns so).
_ENDED_SEMI = "ended AS positions SEMI JOIN passed ON positions.game = passed.game"


def reads_windows(sql: str) -> bool:
    """Whether the question ``sql`` orders every position of its games in a window (its
    memory grows with the games asked: :data:`WINDOW_GAMES` at a time bound it)."""
    return "OVER along" in sql


#: The games of the file whose positions one window orders at a time.  On 100,000 games
#: (12.6 M positions) the queen staircase's question, its eight windows over every
#: position at once, spilled to disk under the reader's memory bound: 9.7 s of CPU;
#: 8 questions of 12,500 games 6.1 s.
WINDOW_GAMES = 10_000


def asks_positions(need: Necessity) -> bool:
    """Whether some list of ``need`` is asked of the positions (not of the summary)."""
    return any(not summary_decides(found) for found in need.lists)


def summary_decides(found: ListNeed) -> bool:
    """Whether the summary alone tells the games where ``found`` holds at some position:
    each alternative is one piece atom asking for at least one piece (or none) of some
    types on some squares — the union of the squares those types ever stand on meets
    those squares exactly then — or one flag but the side to move (seen at some position
    exactly when the union of the flags has it)."""
    return found.at_least <= 1 and all(_summary_exact(alt) for alt in found.alternatives)


def _summary_exact(alternative: Alternative) -> bool:
    if alternative.moves or alternative.later or alternative.elsewhere or alternative.attacks:
        return False
    if not alternative.atoms:
        return len(alternative.flags) == 1 and not alternative.flags & POSITION_ONLY_FLAGS
    if alternative.flags or len(alternative.atoms) != 1:
        return False
    atom = alternative.atoms[0]
    pieces = atom.types & _PIECE_BITS
    return atom.lo <= 1 and atom.hi is None and bool(pieces) and pieces == atom.types


#: Beyond this many characters of SQL, a list's alternatives are asked of the positions
#: as their hull (:func:`~cqllegacy.evaluator.necessary.hull`): the question's cost grows
#: with its length times the positions (an orbit of 160 lines under ``:shift :flip``
#: wrote 425,000 characters and took 8 s of CPU on 5,000 games; the summary still asks
#: each alternative).
MAX_LIST_SQL = 20_000


def _list_query(found: ListNeed) -> str:
    """The games with a position where one of ``found``'s alternatives holds: the
    position's row, those a few plies after (or before) it, and for the conditions said
    of some other position, some row of the game."""
    if _longer_than(found.alternatives, MAX_LIST_SQL):
        found = attrs.evolve(found, alternatives=hull(found.alternatives))
    rows = [alternative_sql(alt) for alt in found.alternatives]
    elsewhere = any(alt.elsewhere for alt in found.alternatives)
    if not elsewhere and found.at_least <= 1:
        # Every alternative holds at its own row: the rows where none of their own
        # conditions holds need no neighbour and no long test.
        here = _any([alternative_sql(alt.here) for alt in found.alternatives])
        if here != "TRUE" and STEP_BY_JOINS and _OFFSET_COLUMN.search(" ".join(rows)):
            return f"SELECT DISTINCT game FROM ({_stepped_rows(found.alternatives, here)})"
        # Where each alternative speaks of its own row alone, the rows' test is that one.
        where = _any(rows) if here in ("TRUE", _any(rows)) else f"{here} AND {_any(rows)}"
        if not _OFFSET_COLUMN.search(" ".join(rows)):
            flagged = _flagged_rows(found.alternatives, rows)
            return f"SELECT DISTINCT game FROM {flagged} WHERE {where}"
        return f"SELECT DISTINCT game FROM {_rows(rows)} WHERE {where}"
    having = []
    if found.at_least > 1:
        # So many positions match: at least as many satisfy an alternative.
        having.append(f"count(*) FILTER (WHERE {_any(rows)}) >= {int(found.at_least)}")
    conditions = list(rows)
    if elsewhere:
        each = []
        for alt, row in zip(found.alternatives, rows, strict=True):
            others = [alternative_sql(part) for part in alt.elsewhere]
            conditions += others
            each.append(" AND ".join(f"bool_or({part})" for part in [row, *others]))
        having.append(" OR ".join(f"({part})" for part in each))
    return (
        f"SELECT game FROM {_rows(conditions)} WHERE {_any(conditions)} "
        f"GROUP BY game HAVING {' AND '.join(f'({part})' for part in having)}"
    )


def _flagged_rows(alternatives: Sequence[Alternative], conditions: Sequence[str]) -> str:
    """The positions of the games that passed the summary, with the columns
    ``conditions`` read, where the flags some alternative asks for (check, mate,
    stalemate, :func:`_flag_filter`) are set.  DuckDB tests those flags as it reads the
    one column; a long condition over the rows is then asked only of the rows they leave
    (not of every row: smothered mate's question 0.62 → 0.30 s of CPU on 100,000 games)."""
    flags = _flag_filter(alternatives)
    if flags == "TRUE":
        return _SEMI
    own = ", ".join(f"positions.{name}" for name in _own_columns(conditions))
    rows = _ENDED_SEMI if all(_ends_game(alt) for alt in alternatives) else _SEMI
    return f"(SELECT {own} FROM {rows} WHERE {flags}) AS flagged"


def _ends_game(alternative: Alternative) -> bool:
    """Whether ``alternative`` holds only where the side to move is mated or
    stalemated: only at rows the ``ended`` table holds."""
    return bool(alternative.flags & _ENDING)


_ENDING = frozenset({"mate", "stalemate"})


_SIDE_TO_MOVE = frozenset({"wtm", "btm"})


def _flag_filter(alternatives: Sequence[Alternative]) -> str:
    """The flags of a row where one of ``alternatives`` holds: those all ask for, and one
    of the others each asks for (TRUE: no test).  The side to move is left out: half the
    rows have either, and a test that keeps most rows costs more than it saves.

    >>> check, mate = frozenset({"check"}), frozenset({"mate"})
    >>> _flag_filter([Alternative(flags=check | {"wtm"}), Alternative(flags=check | {"btm"})])
    '(flags & 2) <> 0'
    >>> _flag_filter([Alternative(flags=check), Alternative(flags=mate)])
    '(((flags & 2) <> 0) OR ((flags & 4) <> 0))'
    >>> _flag_filter([Alternative(flags=check), Alternative()])
    'TRUE'
    """
    each = [set(_flags_sql(alt.flags - _SIDE_TO_MOVE)) for alt in alternatives]
    if not each:
        return "TRUE"
    common = set.intersection(*each)
    parts = sorted(common)
    rest = [sorted(flags - common) for flags in each]
    if all(rest):
        parts.append(_any([" AND ".join(flags) for flags in rest]))
    return " AND ".join(parts) if parts else "TRUE"


def _longer_than(alternatives: Sequence[Alternative], most: int) -> bool:
    """Whether the alternatives' SQL (each part's) is longer than ``most`` characters;
    written only until it is (an orbit's 128 alternatives cost 10 ms to write)."""
    length = 0
    for alt in alternatives:
        for part in (alt, *alt.elsewhere):
            length += len(alternative_sql(part))
            if length > most:
                return True
    return False


def _rows(conditions: Sequence[str]) -> str:
    """The positions of the games that passed the summary, with the columns of the
    positions a few plies later (or before) that ``conditions`` read."""
    wanted = sorted(
        {(int(k) if side == "n" else -int(k), name)
         for side, k, name in _OFFSET_COLUMN.findall(" ".join(conditions))}
    )  # fmt: skip
    if not wanted:
        return _SEMI
    own = ", ".join(f"positions.{name}" for name in _own_columns(conditions))
    shifted = ", ".join(
        f"{'lead' if k > 0 else 'lag'}({name}, {abs(k)}) OVER along AS {column(name, k)}"
        for k, name in wanted
    )
    return (
        f"(SELECT {own}, {shifted} FROM {_SEMI} "
        "WINDOW along AS (PARTITION BY positions.game ORDER BY positions.ply))"
    )


#: A list whose alternatives each hold at a row of their own (not only a ply before or
#: after it) is asked a ply at a time: its rows first, then each next ply by a join from
#: the rows kept so far (:func:`_stepped_rows`).  Otherwise a window over every position
#: of the passed games gives each row its neighbours.  Measured on 100,000 games (12.6 M
#: positions), one thread, under the reader's memory bound: Appendix C #11 (two plies on)
#: 27 s by the window, 3.2 s by joins; the queen staircase (eight plies on) 9.7 s by the
#: window (6.1 s in blocks of games), 4.7 s a ply at a time.
STEP_BY_JOINS = True


def _own_columns(conditions: Sequence[str]) -> list[str]:
    """The columns of the position itself that ``conditions`` read, and its game and
    ply (a window orders by them, a join matches on them)."""
    text = " ".join(conditions)
    return ["game", "ply"] + [
        name for name in _POSITION_COLUMNS[2:] if re.search(rf"(?<![\w.]){name}\b", text)
    ]


#: The columns of the ``positions`` table, in its order.
_POSITION_COLUMNS = ("game", "ply", *BOARD_FIELDS, *STATE_FIELDS, *MOVE_FIELDS)


def _stepped_rows(alternatives: Sequence[Alternative], here: str) -> str:
    """The rows where some alternative holds, found a ply at a time: the rows where one
    holds on its own row, then (nearest ply first) those where one also holds at the next
    ply it speaks of, read by a join from the rows kept so far, and so on.  Each step's
    rows are materialised: left to itself, DuckDB joins every ply first and tests after
    (its optimiser cannot push a test of two joined rows below either join)."""
    rows = [alternative_sql(alt) for alt in alternatives]
    flagged = _flagged_rows(alternatives, rows)
    own = ", ".join(f"positions.{name}" for name in _own_columns(rows))
    steps = [
        f"step_0 AS MATERIALIZED (SELECT {'*' if flagged != _SEMI else own} "
        f"FROM {flagged} WHERE {here})"
    ]
    offsets = sorted({k for alt in alternatives for k, _found in alt.later}, key=abs)
    done: set[int] = set()
    for k in offsets:
        done.add(k)
        names = sorted(
            {name for alt in alternatives for j, found in alt.later if j == k
             for _side, _k, name in _OFFSET_COLUMN.findall(" ".join(_here_sql(found, k)))}
        )  # fmt: skip
        if not names:
            continue
        ahead = f"o_{'n' if k > 0 else 'p'}{abs(k)}"
        picked = ", ".join(f"{ahead}.{name} AS {column(name, k)}" for name in names)
        test = _any([_up_to(alt, done) for alt in alternatives])
        steps.append(
            f"step_{len(steps)} AS MATERIALIZED (SELECT * FROM (SELECT step.*, {picked} "
            f"FROM step_{len(steps) - 1} AS step "
            f"JOIN positions AS {ahead} ON {ahead}.game = step.game "
            f"AND {ahead}.ply = CAST(step.ply AS INTEGER) + ({k})) WHERE {test})"
        )
    return f"WITH {', '.join(steps)} SELECT * FROM step_{len(steps) - 1}"


def _up_to(alternative: Alternative, offsets: set[int]) -> str:
    """The conditions of ``alternative`` said of its own row and of the plies
    ``offsets`` from it."""
    parts = _here_sql(alternative)
    for k, found in alternative.later:
        if k in offsets:
            parts += _here_sql(found, k)
    return "(" + " AND ".join(parts) + ")" if parts else "TRUE"
