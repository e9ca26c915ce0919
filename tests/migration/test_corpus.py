"""The migration corpus: goldens regenerate unchanged, and CQL 6.1 means the same.

For every ``fixtures/migration/NNN-name/`` folder:

- translating ``legacy.cql`` gives ``modern.cql`` (or the refusal in ``refused.txt``)
  and running it on ``fixtures/games.pgn`` gives ``expected.json``, byte for byte;
- ``modern.cql`` parses with the independent ``chessql`` parser;
- ``modern.cql`` read back with the CQL 6 reader and run selects the same games as the
  legacy script and, list by list, matches the same positions.

Every script is compiled once and all run in one pass over the games.  After a
deliberate change, rewrite the goldens with ``python tools/update_goldens.py`` and review
the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cqllegacy.fixturekit import (
    EXPECTED_NAME,
    LEGACY_NAME,
    MODERN_NAME,
    REFUSED_NAME,
    Results,
    Toolchain,
    Triple,
    compare_modern,
    parse_expected,
    read_games,
    regenerate,
    run_compiled,
    sha256_of,
)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "fixtures" / "migration"
GAMES = ROOT / "fixtures" / "games.pgn"
FOLDERS = sorted(p for p in CORPUS.iterdir() if (p / LEGACY_NAME).is_file())
NAMES = [folder.name for folder in FOLDERS]

UPDATE_HINT = "if the change is intended, run: python tools/update_goldens.py {name}"


@pytest.fixture(scope="module")
def tools() -> Toolchain:
    return Toolchain.default()


@pytest.fixture(scope="module")
def regenerated(tools: Toolchain) -> dict[str, Triple]:
    return dict(zip(NAMES, regenerate(tools, FOLDERS, GAMES), strict=True))


@pytest.fixture(scope="module")
def modern_results(tools: Toolchain) -> dict[str, Results]:
    with_modern = [f for f in FOLDERS if (f / MODERN_NAME).is_file()]
    compiled = [
        tools.compile(tools.modern_query(_text(f / MODERN_NAME), str(f / MODERN_NAME)))
        for f in with_modern
    ]
    results = run_compiled(compiled, read_games(GAMES))
    return {f.name: r for f, r in zip(with_modern, results, strict=True)}


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_every_folder_has_a_complete_triple() -> None:
    for folder in FOLDERS:
        names = {p.name for p in folder.iterdir()}
        translations = names & {MODERN_NAME, REFUSED_NAME}
        assert len(translations) == 1, f"{folder.name}: needs modern.cql or refused.txt"
        assert names == {LEGACY_NAME, EXPECTED_NAME, *translations}, folder.name


def test_goldens_record_the_fixture_games() -> None:
    digest = sha256_of(GAMES)
    for folder in FOLDERS:
        expected = parse_expected(_text(folder / EXPECTED_NAME))
        assert expected.pgn.sha256 == digest, f"{folder.name}: games.pgn changed"
        assert expected.pgn.resolve(folder) == GAMES.resolve()


def test_corpus_selects_games_and_refuses_some() -> None:
    # The corpus must exercise both outcomes and find games, or its checks prove little.
    refused = [f for f in FOLDERS if (f / REFUSED_NAME).is_file()]
    selecting = [f for f in FOLDERS if parse_expected(_text(f / EXPECTED_NAME)).results.games]
    assert refused and len(refused) < len(FOLDERS) // 4
    assert len(selecting) >= len(FOLDERS) * 9 // 10


@pytest.mark.parametrize("name", NAMES)
def test_translation_matches_golden(name: str, regenerated: dict[str, Triple]) -> None:
    folder, triple = CORPUS / name, regenerated[name]
    if triple.modern is not None:
        assert (folder / MODERN_NAME).is_file(), UPDATE_HINT.format(name=name)
        assert triple.modern == _text(folder / MODERN_NAME), UPDATE_HINT.format(name=name)
    else:
        assert (folder / REFUSED_NAME).is_file(), UPDATE_HINT.format(name=name)
        assert triple.refused == _text(folder / REFUSED_NAME), UPDATE_HINT.format(name=name)


@pytest.mark.parametrize("name", NAMES)
def test_results_match_golden(name: str, regenerated: dict[str, Triple]) -> None:
    assert regenerated[name].expected == _text(CORPUS / name / EXPECTED_NAME), UPDATE_HINT.format(
        name=name
    )


@pytest.mark.parametrize("name", [f.name for f in FOLDERS if (f / MODERN_NAME).is_file()])
def test_modern_golden_parses_with_chessql(name: str) -> None:
    from chessql.core import parser

    parser.parse(_text(CORPUS / name / MODERN_NAME))


@pytest.mark.parametrize("name", [f.name for f in FOLDERS if (f / MODERN_NAME).is_file()])
def test_modern_script_selects_what_the_legacy_script_selects(
    name: str, modern_results: dict[str, Results]
) -> None:
    expected = parse_expected(_text(CORPUS / name / EXPECTED_NAME))
    assert compare_modern(expected.results, modern_results[name]) == []
