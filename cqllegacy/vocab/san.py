"""Reading a SAN move the way python-chess does, without generating every legal move.

python-chess's ``Board.parse_san`` finds a move by generating the legal moves that
could match and keeping the one that does.  That is half the cost of reading a PGN
file.  :func:`parse_san` computes the same answer directly for the common forms
(``e4``, ``exd5``, ``Nf3``, ``Rad1``, ``e8=Q``): the pieces that can reach the target
square come from attack tables, and a candidate is legal when its own king is not
attacked once it has moved.  Everything else (castling, en passant, null moves,
fully specified squares, Chess960, unusual boards, ambiguous or illegal moves) is
handed to python-chess, so the result, and the error raised for a bad move, is always
python-chess's own.

>>> board = chess.Board()
>>> parse_san(board, "Nf3"), parse_san(board, "e4")
(Move.from_uci('g1f3'), Move.from_uci('e2e4'))
>>> board = chess.Board("4k3/8/8/8/1b6/8/3N1N2/4K3 w - - 0 1")
>>> parse_san(board, "Ne4")  # the knight on d2 is pinned by the bishop
Move.from_uci('f2e4')
>>> parse_san(board, "Nb3")
Traceback (most recent call last):
...
chess.IllegalMoveError: illegal san: 'Nb3' in 4k3/8/8/8/1b6/8/3N1N2/4K3 w - - 0 1
"""

from __future__ import annotations

import chess

__all__ = ["direct_move", "parse_san", "play"]

#: What a SAN token says, for the forms read here: the moving piece type, the squares
#: it may come from (file/rank hints), the target square, the promotion piece type.
_Token = tuple[chess.PieceType, chess.Bitboard, chess.Square, chess.PieceType | None]

#: Token text → its reading, or None for a form left to python-chess.  Tokens come
#: from a finite alphabet (python-chess's move pattern), so the cache stays small.
_TOKENS: dict[str, _Token | None] = {}

_PIECE_LETTERS = {
    "N": chess.KNIGHT,
    "B": chess.BISHOP,
    "R": chess.ROOK,
    "Q": chess.QUEEN,
    "K": chess.KING,
}
_PROMOTIONS = {"n": chess.KNIGHT, "b": chess.BISHOP, "r": chess.ROOK, "q": chess.QUEEN}
_LAST_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8


def _read_token(san: str) -> _Token | None:
    """The reading of ``san``, None when python-chess should read it.

    >>> _read_token("Nbd2") == (chess.KNIGHT, chess.BB_FILE_B, chess.D2, None)
    True
    >>> _read_token("O-O"), _read_token("e2e4"), _read_token("exe5")
    (None, None, None)
    """
    match = chess.SAN_REGEX.match(san)
    if match is None:
        return None
    letter, file_name, rank_name, target, promotion = match.groups()
    to_square = chess.parse_square(target)
    from_mask = chess.BB_ALL
    if file_name:
        from_mask &= chess.BB_FILES[chess.FILE_NAMES.index(file_name)]
    if rank_name:
        from_mask &= chess.BB_RANKS[int(rank_name) - 1]
    promoted = _PROMOTIONS.get(promotion[-1].lower()) if promotion else None
    if promotion and promoted is None:
        return None  # promotion to a king: python-chess says why it is illegal
    if letter:
        return (_PIECE_LETTERS[letter], from_mask, to_square, promoted)
    if file_name and rank_name:
        return None  # "e2e4": python-chess accepts any piece there
    if file_name and chess.square_file(to_square) == chess.FILE_NAMES.index(file_name):
        return None  # "ee4": a push spelled as a capture
    if not file_name:
        from_mask &= chess.BB_FILES[chess.square_file(to_square)]
    return (chess.PAWN, from_mask, to_square, promoted)


def _reading(san: str) -> _Token | None:
    try:
        return _TOKENS[san]
    except KeyError:
        reading = _TOKENS[san] = _read_token(san)
        return reading


def _pawn_sources(
    board: chess.Board, from_mask: chess.Bitboard, to_square: chess.Square
) -> chess.Bitboard:
    """Squares of the mover's pawns that push or capture (not en passant) to ``to_square``."""
    turn = board.turn
    pawns = board.pawns & board.occupied_co[turn] & from_mask
    target = chess.BB_SQUARES[to_square]
    if board.occupied_co[not turn] & target:
        return pawns & chess.BB_PAWN_ATTACKS[not turn][to_square]
    if board.occupied & target:
        return 0
    step = -8 if turn == chess.WHITE else 8
    one_back = to_square + step
    if not 0 <= one_back < 64:
        return 0
    if board.occupied & chess.BB_SQUARES[one_back]:
        return pawns & chess.BB_SQUARES[one_back]
    double_rank = chess.BB_RANK_4 if turn == chess.WHITE else chess.BB_RANK_5
    if target & double_rank:
        return pawns & chess.BB_SQUARES[one_back + step]
    return 0


def _king_safe_after(
    board: chess.Board, from_square: chess.Square, to_square: chess.Square, king: chess.Square
) -> bool:
    """Whether the mover's king (on ``king``) is not attacked once the piece on
    ``from_square`` stands on ``to_square`` (capturing what is there)."""
    target = chess.BB_SQUARES[to_square]
    occupied = (board.occupied & ~chess.BB_SQUARES[from_square]) | target
    if king == from_square:
        king = to_square
    return not board.attackers_mask(not board.turn, king, occupied) & ~target


def _fast_move(board: chess.Board, reading: _Token) -> chess.Move | None:
    # One function for the usual move (one piece can make it): the reach, the sources and
    # the king's safety inline (:func:`_king_safe_after`), as they run
    # for every move of every game read.
    piece_type, from_mask, to_square, promotion = reading
    turn = board.turn
    occupied_co = board.occupied_co
    mine = occupied_co[turn]
    target = _SQUARES[to_square]
    if mine & target:
        return None
    occupied = board.occupied
    if piece_type == chess.PAWN:
        if bool(promotion) != bool(target & _LAST_RANKS):
            return None
        sources = _pawn_sources(board, from_mask, to_square)
    elif promotion:
        return None
    elif piece_type == chess.KNIGHT:
        sources = board.knights & mine & from_mask & _KNIGHT_ATTACKS[to_square]
    elif piece_type == chess.KING:
        sources = board.kings & mine & from_mask & _KING_ATTACKS[to_square]
    else:
        if piece_type == chess.BISHOP:
            pieces = board.bishops
            reach = _DIAG_ATTACKS[to_square][_DIAG_MASKS[to_square] & occupied]
        else:
            reach = (
                _RANK_ATTACKS[to_square][_RANK_MASKS[to_square] & occupied]
                | _FILE_ATTACKS[to_square][_FILE_MASKS[to_square] & occupied]
            )
            if piece_type == chess.ROOK:
                pieces = board.rooks
            else:
                pieces = board.queens
                reach |= _DIAG_ATTACKS[to_square][_DIAG_MASKS[to_square] & occupied]
        sources = pieces & mine & from_mask & reach
    kings = board.kings & mine
    if not sources or kings & (kings - 1) or not kings:
        return None
    king = kings.bit_length() - 1
    if sources & (sources - 1):
        legal = [
            from_square
            for from_square in chess.scan_forward(sources)
            if _king_safe_after(board, from_square, to_square, king)
        ]
        if len(legal) != 1:
            return None
        return chess.Move(legal[0], to_square, promotion)
    # One candidate, the usual case: is the king attacked once it has moved?
    from_square = sources.bit_length() - 1
    after = occupied & ~_SQUARES[from_square] | target
    if king == from_square:
        king = to_square
    theirs = occupied_co[not turn] & ~target
    if (
        _KNIGHT_ATTACKS[king] & board.knights
        | _KING_ATTACKS[king] & board.kings
        | _PAWN_ATTACKS[turn][king] & board.pawns
    ) & theirs:
        return None
    queens = board.queens
    straight = (queens | board.rooks) & theirs
    if (
        straight
        and (
            _RANK_ATTACKS[king][_RANK_MASKS[king] & after]
            | _FILE_ATTACKS[king][_FILE_MASKS[king] & after]
        )
        & straight
    ):
        return None
    diagonal = (queens | board.bishops) & theirs
    if diagonal and _DIAG_ATTACKS[king][_DIAG_MASKS[king] & after] & diagonal:
        return None
    return chess.Move(from_square, to_square, promotion)


_SQUARES = chess.BB_SQUARES
_KNIGHT_ATTACKS, _KING_ATTACKS, _PAWN_ATTACKS = (
    chess.BB_KNIGHT_ATTACKS,
    chess.BB_KING_ATTACKS,
    chess.BB_PAWN_ATTACKS,
)
_RANK_ATTACKS, _FILE_ATTACKS, _DIAG_ATTACKS = (
    chess.BB_RANK_ATTACKS,
    chess.BB_FILE_ATTACKS,
    chess.BB_DIAG_ATTACKS,
)
_RANK_MASKS, _FILE_MASKS, _DIAG_MASKS = (
    chess.BB_RANK_MASKS,
    chess.BB_FILE_MASKS,
    chess.BB_DIAG_MASKS,
)


def direct_move(board: chess.Board, san: str) -> chess.Move | None:
    """The move ``san`` names on ``board`` as read here without python-chess; None where
    :func:`parse_san` leaves it to python-chess (castling, en passant, anything unusual).

    >>> direct_move(chess.Board(), "Nf3"), direct_move(chess.Board(), "O-O")
    (Move.from_uci('g1f3'), None)
    """
    reading = _reading(san)
    return None if reading is None else _fast_move(board, reading)


def parse_san(board: chess.Board, san: str) -> chess.Move:
    """The move ``san`` names on ``board``: what ``board.parse_san(san)`` returns, and
    the same exception where that raises."""
    reading = _reading(san)
    if reading is not None and not board.chess960 and type(board) is chess.Board:
        move = _fast_move(board, reading)
        if move is not None:
            return move
    return board.parse_san(san)


_new_state = chess._BoardState  # (what Board.push keeps to undo a move)


def play(board: chess.Board, move: chess.Move) -> None:
    """``board.push(move)``, with the same effect on every field of the board (its move
    stack and its stack of earlier states included), done inline for the usual move: a
    plain board (not Chess960) past its first move, a piece other than a king moved by
    the side to move, no promotion, no en passant, no king taken.  Every other move is
    python-chess's own ``push``.  (python-chess's ``push`` calls a method for each step;
    replaying a game costs about a third less without the calls.)

    >>> board = chess.Board()
    >>> play(board, chess.Move.from_uci("g1f3")); play(board, chess.Move.from_uci("d7d5"))
    >>> board.fen(), [move.uci() for move in board.move_stack]
    ('rnbqkbnr/ppp1pppp/8/3p4/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 2', ['g1f3', 'd7d5'])
    """
    from_square, to_square = move.from_square, move.to_square
    from_bb, to_bb = chess.BB_SQUARES[from_square], chess.BB_SQUARES[to_square]
    turn, occupied_co, pawns = board.turn, board.occupied_co, board.pawns
    mine = occupied_co[turn]
    if (
        move.promotion
        or not mine & from_bb
        or mine & to_bb
        or board.kings & (from_bb | to_bb)
        or (pawns & from_bb and to_square == board.ep_square)
        or move.drop
        or board.chess960
        or not board._stack  # (the first push cleans the castling rights)
        or type(board) is not chess.Board
    ):
        board.push(move)
        return
    # What push records first: the state to undo, the move (a copy, as push makes one).
    board._stack.append(_new_state(board))
    board.move_stack.append(chess.Move(from_square, to_square))
    board.ep_square = None
    if turn == chess.BLACK:
        board.fullmove_number += 1
    theirs = occupied_co[not turn]
    touched = from_bb | to_bb
    if touched & pawns or touched & theirs:
        board.halfmove_clock = 0
    else:
        board.halfmove_clock += 1
    board.castling_rights &= ~touched
    promoted = board.promoted
    if theirs & to_bb:  # the piece taken leaves (never a king: see above)
        occupied_co[not turn] = theirs ^ to_bb
        board.occupied ^= from_bb
        promoted &= ~to_bb
        if pawns & to_bb:
            board.pawns = pawns = pawns ^ to_bb
        elif board.knights & to_bb:
            board.knights ^= to_bb
        elif board.bishops & to_bb:
            board.bishops ^= to_bb
        elif board.rooks & to_bb:
            board.rooks ^= to_bb
        else:
            board.queens ^= to_bb
    else:
        board.occupied ^= touched
    occupied_co[turn] = mine ^ touched
    # A promoted piece carries its mark (push leaves a mark on an empty target square).
    if promoted & from_bb:
        promoted = promoted & ~from_bb | to_bb
    board.promoted = promoted
    if pawns & from_bb:
        board.pawns = pawns ^ touched
        if to_square - from_square == 16 and from_square >> 3 == 1:
            board.ep_square = from_square + 8
        elif to_square - from_square == -16 and from_square >> 3 == 6:
            board.ep_square = from_square - 8
    elif board.knights & from_bb:
        board.knights ^= touched
    elif board.bishops & from_bb:
        board.bishops ^= touched
    elif board.rooks & from_bb:
        board.rooks ^= touched
    else:
        board.queens ^= touched
    board.turn = not turn
