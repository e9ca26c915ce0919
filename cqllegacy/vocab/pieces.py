"""Piece-type sets: what may stand on a square, as a 13-bit mask.

Bits 0-5 are the white pieces (pawn … king, python-chess order), bits 6-11 the black
pieces, bit 12 the empty square.  The letter tables of both languages live here.

>>> legacy_types("M") == types_of("QR")
True
>>> format_legacy_types(color_swap(legacy_types("[Rbp]")))
'[BPr]'
>>> format_modern_types(legacy_types("?"))
''
"""

from __future__ import annotations

import chess

TypeSet = int

WHITE_SHIFT = 0
BLACK_SHIFT = 6
EMPTY_BIT: TypeSet = 1 << 12

WHITE_PIECES: TypeSet = 0b111111
BLACK_PIECES: TypeSet = 0b111111 << BLACK_SHIFT
ANY_PIECE: TypeSet = WHITE_PIECES | BLACK_PIECES
ANYTHING: TypeSet = ANY_PIECE | EMPTY_BIT
NOTHING: TypeSet = 0


def piece_bit(color: chess.Color, piece_type: chess.PieceType) -> TypeSet:
    """The bit of one coloured piece (``chess.WHITE``, ``chess.ROOK`` …)."""
    return 1 << (piece_type - 1 + (WHITE_SHIFT if color else BLACK_SHIFT))


def content_bit(piece: chess.Piece | None) -> TypeSet:
    """The bit describing a square's content (``None`` = empty)."""
    if piece is None:
        return EMPTY_BIT
    return piece_bit(piece.color, piece.piece_type)


_SINGLE_LETTERS = {
    "P": piece_bit(chess.WHITE, chess.PAWN),
    "N": piece_bit(chess.WHITE, chess.KNIGHT),
    "B": piece_bit(chess.WHITE, chess.BISHOP),
    "R": piece_bit(chess.WHITE, chess.ROOK),
    "Q": piece_bit(chess.WHITE, chess.QUEEN),
    "K": piece_bit(chess.WHITE, chess.KING),
    "p": piece_bit(chess.BLACK, chess.PAWN),
    "n": piece_bit(chess.BLACK, chess.KNIGHT),
    "b": piece_bit(chess.BLACK, chess.BISHOP),
    "r": piece_bit(chess.BLACK, chess.ROOK),
    "q": piece_bit(chess.BLACK, chess.QUEEN),
    "k": piece_bit(chess.BLACK, chess.KING),
}


def types_of(letters: str) -> TypeSet:
    """Union of the plain piece letters ``KQRBNPkqrbnp`` in ``letters``."""
    out = 0
    for ch in letters:
        out |= _SINGLE_LETTERS[ch]
    return out


#: Legacy (CQL 3) piece-type letters (semantics: S-piece-types).
LEGACY_LETTERS: dict[str, TypeSet] = {
    **_SINGLE_LETTERS,
    "A": WHITE_PIECES,
    "a": BLACK_PIECES,
    "M": types_of("QR"),
    "m": types_of("qr"),
    "I": types_of("BN"),
    "i": types_of("bn"),
    "U": ANY_PIECE,
    ".": EMPTY_BIT,
    "?": ANYTHING,
}

#: Modern (CQL 6) piece-type letters.
MODERN_LETTERS: dict[str, TypeSet] = {
    **_SINGLE_LETTERS,
    "A": WHITE_PIECES,
    "a": BLACK_PIECES,
    "_": EMPTY_BIT,
}

#: Material values used by ``:power`` and ``power`` (king 0).
POWER_VALUES: dict[chess.PieceType, int] = {
    chess.PAWN: 1,
    chess.KNIGHT: 3,
    chess.BISHOP: 3,
    chess.ROOK: 5,
    chess.QUEEN: 9,
    chess.KING: 0,
}


def legacy_types(text: str) -> TypeSet:
    """Type set of a legacy piece-type designator: ``R``, ``U``, ``[Ak.]`` …

    Raises ``KeyError`` with the offending letter for an unknown letter.
    """
    bracketed = text.startswith("[") and text.endswith("]") and len(text) > 2
    letters = text[1:-1] if bracketed else text
    out = 0
    for ch in letters:
        out |= LEGACY_LETTERS[ch]
    return out


def color_swap(types: TypeSet) -> TypeSet:
    """Swap the colours of every piece type; the empty square stays.

    >>> color_swap(types_of("K")) == types_of("k")
    True
    """
    white = types & WHITE_PIECES
    black = (types & BLACK_PIECES) >> BLACK_SHIFT
    return (types & EMPTY_BIT) | (white << BLACK_SHIFT) | black


def _format(types: TypeSet, groups: list[tuple[str, TypeSet]]) -> str:
    letters = []
    rest = types
    for letter, bits in groups:
        if bits & rest == bits:
            letters.append(letter)
            rest &= ~bits
    if rest:
        raise ValueError(f"type set {types:#x} has bits no letter covers")
    if len(letters) == 1:
        return letters[0]
    return "[" + "".join(letters) + "]"


_PLAIN_ORDER = "KQRBNPkqrbnp"


def format_legacy_types(types: TypeSet) -> str:
    """Canonical legacy spelling: ``?``, ``U``, ``A``/``a`` where they fit, else letters.

    >>> format_legacy_types(types_of("QRq") | EMPTY_BIT)
    '[QRq.]'
    """
    if types == NOTHING:
        raise ValueError("an empty type set has no legacy spelling")
    if types == ANYTHING:
        return "?"
    groups: list[tuple[str, TypeSet]] = [("U", ANY_PIECE), ("A", WHITE_PIECES), ("a", BLACK_PIECES)]
    groups += [(ch, _SINGLE_LETTERS[ch]) for ch in _PLAIN_ORDER]
    groups.append((".", EMPTY_BIT))
    return _format(types, groups)


def format_modern_types(types: TypeSet) -> str:
    """Canonical CQL 6 spelling; ``""`` means any content (the type part is left out).

    >>> format_modern_types(ANY_PIECE), format_modern_types(EMPTY_BIT)
    ('[Aa]', '_')
    """
    if types == NOTHING:
        raise ValueError("an empty type set has no CQL 6 spelling")
    if types == ANYTHING:
        return ""
    groups: list[tuple[str, TypeSet]] = [("A", WHITE_PIECES), ("a", BLACK_PIECES)]
    groups += [(ch, _SINGLE_LETTERS[ch]) for ch in _PLAIN_ORDER]
    groups.append(("_", EMPTY_BIT))
    return _format(types, groups)


def piece_types_in(types: TypeSet) -> list[tuple[chess.Color, chess.PieceType]]:
    """The coloured piece types a type set admits (the empty square left out)."""
    out = []
    for color, shift in ((chess.WHITE, WHITE_SHIFT), (chess.BLACK, BLACK_SHIFT)):
        for piece_type in chess.PIECE_TYPES:
            if types >> (piece_type - 1 + shift) & 1:
                out.append((color, piece_type))
    return out
