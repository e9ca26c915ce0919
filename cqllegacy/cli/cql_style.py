"""Command lines as CQL and CQLi users write them.

CQL 6 and CQLi read long options with one hyphen as well as two (``-input h.pgn``,
``-gamenumber 1 100``), case-insensitively, and put them before the script's name.
argparse would read ``-input`` as ``-i nput``; :func:`normalize` rewrites, before
argparse sees them, the single-hyphen spellings of a sub-command's long options into
their double-hyphen form, and refuses the CQL options cqllegacy has no counterpart for,
or a misspelt option, with what to type instead.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

#: CQL 6.1 / CQLi options that cqllegacy spells differently: the CQL name, lower case,
#: and ours.
SYNONYMS = {
    "threads": "--jobs",
}

#: CQL 6.1 / CQLi options without a counterpart here, and what to do instead.
UNSUPPORTED = {
    "matchcount": "write the range in the script (:matchcount, or matchcount in cql(...))",
    "mainline": "cqllegacy examines the main line unless the script or --variations asks "
    "for variations",
    "singlethreaded": "use --jobs 1",
    "cql": "write the filters in a script file",
    "fen": "write the position in the script",
    "flip": "write :flip in the script",
    "flipcolor": "write :flipcolor in the script",
    "shift": "write :shift in the script",
    "player": "write :player in the script",
    "white": "write :white in the script",
    "black": "write :black in the script",
    "event": "write the tag test in the script",
    "result": "write :result in the script",
    "year": "write :year in the script",
    "silent": "cqllegacy always writes its { MATCH } comments; --quiet turns off the "
    "progress bar and the summary",
    "alwayscomment": "cqllegacy always writes its { MATCH } comments",
    "matchstring": "cqllegacy writes { MATCH }",
    "lineincrement": "the progress bar on a terminal counts the games (--quiet turns it off)",
    "parse": "use cqllegacy check",
    "assign": "cqllegacy has no script variables to set from the command line",
    "gui": "cqllegacy has no GUI mode",
    "showmatches": "use --report FILE.jsonl",
    "append": "cqllegacy replaces the output file",
    "noclobber": "cqllegacy replaces the output file (never an input or the script)",
}


def long_options(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The parser's long options by their name without hyphens, lower case."""
    return {
        option[2:].lower(): option
        for option in parser._option_string_actions
        if option.startswith("--")
    }


def short_options(parser: argparse.ArgumentParser) -> set[str]:
    """The letters of the parser's short options (``-i`` gives ``i``)."""
    return {
        option[1:]
        for option in parser._option_string_actions
        if len(option) == 2 and option[0] == "-" and option[1] != "-"
    }


def normalize(words: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """``words`` (a sub-command's arguments) with CQL-style options rewritten for
    ``parser``; a CQL option without a counterpart, or an option that is close to one of
    ``parser``'s but not one, ends the command with ``parser.error`` (exit status 2).

    >>> parser = argparse.ArgumentParser(prog="run")
    >>> _ = parser.add_argument("-i", "--input")
    >>> normalize(["x.cql", "-INPUT", "a.pgn", "-i", "b.pgn", "--", "-input"], parser)
    ['x.cql', '--input', 'a.pgn', '-i', 'b.pgn', '--', '-input']
    >>> normalize(["-iGames.pgn", "--input=c.pgn", "-input=d.pgn"], parser)
    ['-iGames.pgn', '--input=c.pgn', '--input=d.pgn']
    """
    longs, shorts = long_options(parser), short_options(parser)
    result: list[str] = []
    for index, word in enumerate(words):
        if word == "--":
            return result + list(words[index:])
        result.append(_rewritten(word, longs, shorts, parser))
    return result


def _rewritten(
    word: str, longs: dict[str, str], shorts: set[str], parser: argparse.ArgumentParser
) -> str:
    if not word.startswith("-") or word == "-" or _is_number(word):
        return word
    hyphens = 2 if word.startswith("--") else 1
    name, equals, value = word[hyphens:].partition("=")
    key = name.lower()
    if key in longs:
        return longs[key] + equals + value
    if hyphens == 1 and key in SYNONYMS and SYNONYMS[key] in parser._option_string_actions:
        return SYNONYMS[key] + equals + value
    if key in UNSUPPORTED and (hyphens == 2 or len(name) > 1):
        parser.error(f"{word}: CQL's -{key} has no cqllegacy option: {UNSUPPORTED[key]}")
    if hyphens == 1 and len(name) > 1:
        suggestion = _suggestion(key, longs)
        # A short option with its value attached ("-j4", "-iGames.pgn") stays, unless it
        # is a word close to a long option ("-inptu" meant --input, not -i nptu).
        if name[0] not in shorts or (name.isalpha() and suggestion):
            parser.error(f"unrecognized option {word}{suggestion}")
    return word


def _suggestion(key: str, longs: dict[str, str]) -> str:
    import difflib  # asked only of a one-hyphen word, not on every command's path

    close = difflib.get_close_matches(key, list(longs), n=1, cutoff=0.7)
    return f": did you mean {longs[close[0]]}?" if close else ""


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True
