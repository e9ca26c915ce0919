"""Make a corpus of distinct games for the index benchmarks (the data is not committed).

``python benchmarks/make_corpus.py OUT.pgn --games 100000 [--engine-games 500] [--seed 1]``

Two kinds of games, every one distinct (a game whose moves repeat an earlier one's is
made again with the next seed):

* *playouts*: from the start position, moves chosen at random among the legal ones,
  preferring captures and pawn pushes (so games end, and look less like noise), up to
  ``--limit`` half-moves (160); ended by mate, stalemate, insufficient material, the
  75-move rule or the limit;
* *engine games* (``--engine-games``): Debian's ``stockfish`` playing itself at a low node
  count after 4 to 10 random opening moves (needs ``stockfish`` on PATH).

Each game has the seven tag roster (White and Black name the kind and seed), so tags
queries have something to read.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import sys
from collections.abc import Iterator

import chess
import chess.engine
import chess.pgn


def playout(rng: random.Random, limit: int = 160) -> chess.Board:
    board = chess.Board()
    while len(board.move_stack) < limit and board.halfmove_clock < 150:
        moves = list(board.legal_moves)
        if not moves or board.is_insufficient_material():
            break
        captures = [move for move in moves if board.is_capture(move)]
        pushes = [move for move in moves if board.pawns >> move.from_square & 1]
        pool = captures if captures and rng.random() < 0.7 else moves
        if pool is moves and pushes and rng.random() < 0.3:
            pool = pushes
        board.push(rng.choice(pool))
    return board


def engine_game(rng: random.Random, engine: chess.engine.SimpleEngine, nodes: int) -> chess.Board:
    board = chess.Board()
    for _ in range(rng.randint(4, 10)):
        if board.is_game_over():
            return board
        board.push(rng.choice(list(board.legal_moves)))
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < 300:
        board.push(engine.play(board, chess.engine.Limit(nodes=nodes)).move)
    return board


def as_pgn(board: chess.Board, kind: str, number: int) -> str:
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = f"cqllegacy benchmark corpus ({kind})"
    game.headers["Site"] = "generated"
    game.headers["Date"] = f"{2000 + number % 25}.01.01"
    game.headers["Round"] = str(number)
    game.headers["White"] = f"{kind} white {number}"
    game.headers["Black"] = f"{kind} black {number}"
    game.headers["Result"] = board.result(claim_draw=True)
    return str(game) + "\n\n"


def games(count: int, engine_games: int, seed: int, nodes: int, limit: int) -> Iterator[str]:
    seen: set[bytes] = set()
    rng_seed = seed
    engine = None
    if engine_games:
        path = shutil.which("stockfish") or "/usr/games/stockfish"
        engine = chess.engine.SimpleEngine.popen_uci(path)
    try:
        for number in range(1, count + 1):
            kind = "engine" if number <= engine_games else "playout"
            while True:
                rng = random.Random(rng_seed)
                rng_seed += 1
                board = engine_game(rng, engine, nodes) if engine else playout(rng, limit)
                key = hashlib.sha1(" ".join(m.uci() for m in board.move_stack).encode()).digest()
                if key not in seen:
                    seen.add(key)
                    break
            if engine is not None and number >= engine_games:
                engine.quit()
                engine = None
            yield as_pgn(board, kind, number)
    finally:
        if engine is not None:
            engine.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--engine-games", type=int, default=0)
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=int, default=160, help="half-moves of a playout at most")
    args = parser.parse_args()
    with open(args.output, "w", encoding="utf-8") as out:
        for number, text in enumerate(
            games(args.games, args.engine_games, args.seed, args.nodes, args.limit), start=1
        ):
            out.write(text)
            if number % 5000 == 0:
                print(f"{number} games", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
