"""The corpus goldens against oracles written with python-chess alone.

Each oracle restates one corpus script's meaning (docs/semantics.md and its decisions) as a
plain predicate over positions, computed here without the project's reader, translator
or evaluator.  The recorded ``expected.json`` must agree: selected games, and for each
selected game the matched and marked positions of every top-level list.

Positions are named as in ``expected.json``: a main-line position by its number of
half-moves from the start of the game, a variation position as ``"PLY.INDEX/…/DEPTH"``: a
step for each half-move off the main continuation, then the depth reached along main
continuations (left out when the last step reached it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import attrs
import chess
import chess.pgn
import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "fixtures" / "migration"
GAMES = ROOT / "fixtures" / "games.pgn"


@attrs.frozen
class Spot:
    """One examined position with what the oracles look at."""

    key: int | str
    board: chess.Board
    moves: tuple[chess.Move, ...]  # continuations in scope (the next move first)
    mainline: bool
    headers: chess.pgn.Headers
    ordinal: int

    @property
    def next_move(self) -> chess.Move | None:
        return self.moves[0] if self.moves else None


def _key(depth: int, branches: tuple[str, ...]) -> int | str:
    if not branches:
        return depth
    last_ply = int(branches[-1].split(".")[0])
    return "/".join(branches if last_ply == depth else (*branches, str(depth)))


def spots(game: chess.pgn.Game, ordinal: int, *, variations: bool) -> list[Spot]:
    """Positions in game order, depth first (main continuation before the variations)."""
    found: list[Spot] = []

    def visit(
        node: chess.pgn.GameNode, board: chess.Board, depth: int, branches: tuple[str, ...]
    ) -> None:
        children = node.variations if variations else node.variations[:1]
        moves = tuple(child.move for child in children)
        key = _key(depth, branches)
        found.append(Spot(key, board.copy(stack=False), moves, not branches, game.headers, ordinal))
        for index, child in enumerate(children):
            board.push(child.move)
            more = (f"{depth + 1}.{index}",) if index else ()
            visit(child, board, depth + 1, branches + more)
            board.pop()

    visit(game, game.board(), 0, ())
    return found


_SPOTS: dict[tuple[int, bool], list[Spot]] = {}


def cached_spots(game: chess.pgn.Game, ordinal: int, *, variations: bool) -> list[Spot]:
    """:func:`spots`, computed once per game and scope for all oracles."""
    key = (ordinal, variations)
    if key not in _SPOTS:
        _SPOTS[key] = spots(game, ordinal, variations=variations)
    return _SPOTS[key]


@pytest.fixture(scope="module")
def games() -> list[chess.pgn.Game]:
    out = []
    with open(GAMES, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            out.append(game)
    return out


# --------------------------------------------------------------------------------------
# Small facts about a position, written out plainly
# --------------------------------------------------------------------------------------


def on(board: chess.Board, symbol: str, name: str) -> bool:
    piece = board.piece_at(chess.parse_square(name))
    return piece is not None and piece.symbol() == symbol


def movenumber(board: chess.Board) -> int:
    """Decision L8."""
    return board.fullmove_number - 1 if board.turn == chess.WHITE else board.fullmove_number


def year(headers: chess.pgn.Headers) -> int | None:
    """Decision L9: the digits before the first dot of Date."""
    head = headers.get("Date", "").split(".")[0]
    return int(head) if head.isdigit() else None


def elo(headers: chess.pgn.Headers, tag: str) -> int | None:
    value = headers.get(tag, "")
    return int(value) if value.isdigit() else None


def between(value: int | None, lo: int, hi: int) -> bool:
    return value is not None and lo <= value <= hi


def count(board: chess.Board, color: chess.Color, piece_type: chess.PieceType) -> int:
    return len(board.pieces(piece_type, color))


def captured_symbol(board: chess.Board, move: chess.Move | None) -> str | None:
    if move is None or board.is_en_passant(move):
        return None
    piece = board.piece_at(move.to_square)
    return piece.symbol() if piece else None


def mated_king_smothered(board: chess.Board) -> bool:
    """Side to move is mated, every neighbour of its king holds its own piece, and exactly
    one enemy knight attacks the king."""
    if not board.is_checkmate():
        return False
    king = board.king(board.turn)
    assert king is not None
    neighbours = chess.BB_KING_ATTACKS[king]
    own = board.occupied_co[board.turn]
    knights = board.pieces(chess.KNIGHT, not board.turn)
    return neighbours & ~own == 0 and len(board.attackers(not board.turn, king) & knights) == 1


def rook_below_pawn(board: chess.Board, files: range = range(8)) -> bool:
    for pawn in board.pieces(chess.PAWN, chess.WHITE):
        file, rank = chess.square_file(pawn), chess.square_rank(pawn)
        if file in files and any(
            on(board, "R", chess.square_name(chess.square(file, r))) for r in range(rank)
        ):
            return True
    return False


def empty_three_right_of_first_rank_rook(board: chess.Board) -> bool:
    """Script 099 under edge-inclusive shifts: a white rook on rank 1 whose square three
    files to the right is empty, or lies off the board (then the count is 0, L5)."""
    for rook in board.pieces(chess.ROOK, chess.WHITE):
        file, rank = chess.square_file(rook), chess.square_rank(rook)
        if rank == 0 and (file + 3 > 7 or board.piece_at(chess.square(file + 3, 0)) is None):
            return True
    return False


def no_white_piece_three_below_black_king(board: chess.Board) -> bool:
    """Script 100: the square three ranks below the black king holds no white piece, or
    is off the board (count 0, L5)."""
    king = board.king(chess.BLACK)
    if king is None:
        return False
    file, rank = chess.square_file(king), chess.square_rank(king)
    if rank - 3 < 0:
        return True
    piece = board.piece_at(chess.square(file, rank - 3))
    return piece is None or piece.color == chess.BLACK


def upset(headers: chess.pgn.Headers) -> bool:
    """Script 049 with its colour flip (L2, L12)."""
    white, black = elo(headers, "WhiteElo"), elo(headers, "BlackElo")
    result = headers.get("Result")
    return (result == "1-0" and between(white, 0, 2300) and between(black, 2600, 3000)) or (
        result == "0-1" and between(black, 0, 2300) and between(white, 2600, 3000)
    )


# --------------------------------------------------------------------------------------
# Oracles: one per script, a list of top-level lists
# --------------------------------------------------------------------------------------


@attrs.frozen
class ListOracle:
    """A top-level list: which positions match, the marking rule, the count condition."""

    matches: Callable[[Spot], bool]
    mark: str = "first"  # "first", "all" or "none" (decision L3)
    variations: bool = False
    matchcount: tuple[int, int] | None = None


@attrs.frozen
class Oracle:
    lists: tuple[ListOracle, ...]
    gamenumber: tuple[int, int] | None = None


def one(matches: Callable[[Spot], bool], **options: object) -> Oracle:
    return Oracle((ListOracle(matches, **options),))  # type: ignore[arg-type]


ORACLES: dict[str, Oracle] = {
    "every-game": one(lambda s: True),
    "white-wins-by-mate": one(
        lambda s: s.headers["Result"] == "1-0" and s.board.is_checkmate() and not s.board.turn
    ),
    "drawn-by-stalemate": one(
        lambda s: s.headers["Result"] == "1/2-1/2" and s.board.is_stalemate()
    ),
    "year-range-checks": one(
        lambda s: between(year(s.headers), 1950, 1969) and s.board.is_check(), mark="all"
    ),
    "gamenumber-queen-captures": Oracle(
        (ListOracle(lambda s: captured_symbol(s.board, s.next_move) in ("Q", "q"), mark="all"),),
        gamenumber=(7, 40),
    ),
    "player-any-case": one(
        lambda s: (
            "alice" in (s.headers["White"] + "|" + s.headers["Black"]).lower()
            and s.board.is_checkmate()
        )
    ),
    "checkmates": one(lambda s: s.board.is_checkmate()),
    "stalemates-markall": one(lambda s: s.board.is_stalemate(), mark="all"),
    "checks-markall": one(lambda s: s.board.is_check(), mark="all"),
    "initial-black-to-move": one(lambda s: s.key == 0 and s.board.turn == chess.BLACK),
    "initial-few-pieces": one(lambda s: s.key == 0 and 2 <= len(s.board.piece_map()) <= 10),
    "variations-mates": one(lambda s: s.board.is_checkmate(), mark="all", variations=True),
    "variationsonly-stalemate": one(
        lambda s: not s.mainline and s.board.is_stalemate(), variations=True
    ),
    "en-passant-markall": one(
        lambda s: s.next_move is not None and s.board.is_en_passant(s.next_move), mark="all"
    ),
    "castling-either-side": one(
        lambda s: any(s.board.is_castling(m) for m in s.moves), mark="all", variations=True
    ),
    "underpromotion": one(
        lambda s: (
            s.next_move is not None
            and s.next_move.promotion in (chess.ROOK, chess.BISHOP, chess.KNIGHT)
        ),
        mark="all",
    ),
    "capturing-promotion": one(
        lambda s: (
            s.next_move is not None
            and s.next_move.promotion is not None
            and s.board.is_capture(s.next_move)
        ),
        mark="all",
    ),
    "early-mate": one(lambda s: s.board.is_checkmate() and 1 <= movenumber(s.board) <= 15),
    "bishop-pair-no-knights": one(
        lambda s: (
            count(s.board, chess.WHITE, chess.BISHOP) == 2
            and count(s.board, chess.BLACK, chess.BISHOP) == 0
            and count(s.board, chess.WHITE, chess.KNIGHT)
            + count(s.board, chess.BLACK, chess.KNIGHT)
            <= 1
        )
    ),
    "double-check-on-black": one(
        lambda s: (
            s.board.turn == chess.BLACK
            and len(s.board.attackers(chess.WHITE, s.board.king(chess.BLACK))) == 2
        ),
        mark="all",
    ),
    "knight-attack-pairs": one(
        lambda s: (
            s.board.turn == chess.BLACK
            and sum(
                len(
                    s.board.attacks(knight)
                    & (
                        s.board.pieces(chess.KING, chess.BLACK)
                        | s.board.pieces(chess.QUEEN, chess.BLACK)
                    )
                )
                for knight in s.board.pieces(chess.KNIGHT, chess.WHITE)
            )
            == 2
        )
    ),
    "smothered-mate": one(lambda s: mated_king_smothered(s.board)),
    "result-elo-upset-flipcolor": one(lambda s: upset(s.headers)),
    "elo-either-player": one(
        lambda s: (
            s.key == 0
            and (
                between(elo(s.headers, "WhiteElo"), 2700, 2799)
                or between(elo(s.headers, "BlackElo"), 2700, 2799)
            )
        )
    ),
    "whiteelo-blackelo": one(
        lambda s: (
            s.key == 0
            and between(elo(s.headers, "WhiteElo"), 2700, 3000)
            and between(elo(s.headers, "BlackElo"), 2600, 2699)
        )
    ),
    "matchcount-many-checks": one(lambda s: s.board.is_check(), matchcount=(10, 1000)),
    "matchcount-zero-queen-moves": Oracle(
        (
            ListOracle(lambda s: s.board.is_checkmate()),
            ListOracle(
                lambda s: (
                    s.next_move is not None
                    and s.board.piece_type_at(s.next_move.from_square) == chess.QUEEN
                ),
                matchcount=(0, 0),
            ),
        )
    ),
    "matchcount-exactly-one-check": one(lambda s: s.board.is_check(), matchcount=(1, 1)),
    "fliphorizontal-rooks": one(
        lambda s: (
            (on(s.board, "R", "a1") and on(s.board, "R", "h1"))
            or (on(s.board, "R", "a8") and on(s.board, "R", "h8"))
        )
    ),
    "flipvertical-castled": one(
        lambda s: (
            (on(s.board, "K", "g1") and on(s.board, "R", "f1"))
            or (on(s.board, "K", "b1") and on(s.board, "R", "c1"))
        ),
        mark="all",
    ),
    "flipdiagonal-king-rook": one(
        lambda s: (
            (on(s.board, "K", "g1") and on(s.board, "R", "f1"))
            or (on(s.board, "K", "a7") and on(s.board, "R", "a6"))
        )
    ),
    "flipoffdiagonal-king-rook": one(
        lambda s: (
            (on(s.board, "K", "g1") and on(s.board, "R", "f1"))
            or (on(s.board, "K", "h2") and on(s.board, "R", "h3"))
        )
    ),
    "shift-rook-behind-pawn": one(lambda s: rook_below_pawn(s.board)),
    "shiftvertical-rook-below-pawn": one(lambda s: rook_below_pawn(s.board, range(2, 3))),
    "fliphorizontal-flipvertical-corner": one(
        lambda s: any(on(s.board, "R", corner) for corner in ("a1", "h1", "a8", "h8"))
    ),
    "shifthorizontal-shiftvertical": one(lambda s: rook_below_pawn(s.board)),
    "not-with-shift-flipcolor": one(
        lambda s: (
            not s.board.pieces(chess.PAWN, chess.WHITE)
            and not s.board.pieces(chess.PAWN, chess.BLACK)
        )
    ),
    "empty-designator-count-shift": one(lambda s: empty_three_right_of_first_rank_rook(s.board)),
    "empty-designator-vertical-count": one(
        lambda s: (
            20 <= movenumber(s.board) <= 25 and no_white_piece_three_below_black_king(s.board)
        ),
        mark="all",
    ),
    "queen-and-underpromotion": Oracle(
        (
            ListOracle(lambda s: s.next_move is not None and s.next_move.promotion == chess.QUEEN),
            ListOracle(
                lambda s: any(
                    m.promotion in (chess.ROOK, chess.BISHOP, chess.KNIGHT) for m in s.moves
                ),
                variations=True,
            ),
        )
    ),
    "mainline-move-beside-variations": Oracle(
        (
            ListOracle(lambda s: any(m.promotion == chess.QUEEN for m in s.moves), variations=True),
            ListOracle(
                lambda s: (
                    s.mainline and s.next_move is not None and s.next_move.promotion == chess.KNIGHT
                )
            ),
        )
    ),
    "designator-letters-start": one(
        lambda s: (
            s.key == 0
            and any(on(s.board, p, f"{f}1") for p in "QR" for f in "abcdefgh")
            and any(on(s.board, p, f"{f}8") for p in "qr" for f in "abcdefgh")
            and any(on(s.board, p, sq) for p in "BN" for sq in ("c1", "f1"))
            and count(s.board, chess.BLACK, chess.BISHOP)
            + count(s.board, chess.BLACK, chess.KNIGHT)
            == 4
        )
    ),
}


def oracle_results(oracle: Oracle, games: list[chess.pgn.Game]) -> dict[int, list[dict]]:
    """``{ordinal: [{"matched": [...], "marked": [...]}, ...]}`` for the selected games."""
    selected = {}
    for ordinal, game in enumerate(games, 1):
        if oracle.gamenumber and not between(ordinal, *oracle.gamenumber):
            continue
        lists = []
        for lst in oracle.lists:
            matched = [
                s.key
                for s in cached_spots(game, ordinal, variations=lst.variations)
                if lst.matches(s)
            ]
            lo, hi = lst.matchcount or (1, 10**9)
            if not lo <= len(matched) <= hi:
                break
            marked = {"first": matched[:1], "all": matched, "none": []}[lst.mark]
            lists.append({"matched": matched, "marked": marked})
        else:
            selected[ordinal] = lists
    return selected


def _sort_key(key: int | str) -> tuple[int, str]:
    if isinstance(key, int):
        return (key, "")
    depth = key.split("/")[-1].split(".")[0]
    return (int(depth), key)


def normalised(lists: list[dict]) -> list[dict]:
    return [
        {name: sorted(lst[name], key=_sort_key) for name in ("matched", "marked")} for lst in lists
    ]


def folder_of(name: str) -> Path:
    """The corpus folder ``NNN-name`` of a script name (numbers may shift)."""
    found = [p for p in CORPUS.iterdir() if p.name.split("-", 1)[1] == name]
    assert len(found) == 1, f"no single corpus folder for {name}: {found}"
    return found[0]


def test_every_oracle_names_a_corpus_folder() -> None:
    for name in ORACLES:
        assert (folder_of(name) / "legacy.cql").is_file()


def test_oracles_are_not_trivial(games: list[chess.pgn.Game]) -> None:
    # Every oracle selects some games and leaves some out, except the script that
    # selects every game on purpose; so each comparison below can fail.
    for name, oracle in ORACLES.items():
        selected = oracle_results(oracle, games)
        assert selected, f"{name}: the oracle selects no game"
        if name != "every-game":
            assert len(selected) < len(games), f"{name}: the oracle selects every game"


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_golden_agrees_with_oracle(name: str, games: list[chess.pgn.Game]) -> None:
    path = folder_of(name) / "expected.json"
    if not path.exists():
        pytest.skip(f"{name}: expected.json not generated yet (tools/update_goldens.py)")
    expected = json.loads(path.read_text(encoding="utf-8"))
    recorded = {game["game"]: normalised(game["lists"]) for game in expected["games"]}
    oracle = {k: normalised(v) for k, v in oracle_results(ORACLES[name], games).items()}
    assert sorted(recorded) == sorted(oracle)
    for ordinal, lists in oracle.items():
        assert recorded[ordinal] == lists, f"game {ordinal}"
