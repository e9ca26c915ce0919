"""One reading of a legacy script: what it has seen so far, and the message of each mistake.

The grammar (:mod:`cqllegacy.legacy.grammar`) recognises the structure; its parse
actions keep a :class:`Reading` up to date (the lists still open, the tags declared
and used) and ask it for the :class:`LegacySyntaxError` of a mistake, located at a
token: the message, what was expected, a hint (closest keyword, the lowercase
spelling …) and the line and column for the caret excerpt.

>>> reading = Reading.of("(match\\n  (position Xa1))", "fork.cql")
>>> reading.span(18)
Span(line=2, column=12)
>>> error = reading.unclosed(0, "match list")
>>> print(error.render())
fork.cql:1:1: error: unclosed '(': the match list opened here is never closed
    expected ')'
    hint: add the missing ')'
    (match
    ^
"""

from __future__ import annotations

import difflib
import re

import attrs

from cqllegacy.errors import SourceText
from cqllegacy.legacy import dialects
from cqllegacy.legacy.errors import LegacySyntaxError
from cqllegacy.legacy.keywords import (
    DIALECT_MATCH_KEYWORDS,
    DIALECT_POSITION_KEYWORDS,
    KEYWORDS,
    LIST_HEADS,
    SHAPE_EXAMPLES,
    STANDARD_NAMES,
    KeywordSpec,
    ListKind,
    homes_of,
    is_extension,
)
from cqllegacy.legacy.lexical import (
    MAX_DIGITS,
    QUOTE,
    TOKEN,
    UNLIMITED,
    AtomError,
    Token,
    TokenKind,
)
from cqllegacy.records import Record
from cqllegacy.vocab.spans import Span

_LIST_NAMES = {
    ListKind.MATCH: "the match list",
    ListKind.POSITION: "a position list",
    ListKind.RELATION: "a :relation list",
}
_LISTS_USAGE = "lists appear only as parameters: :and ((position …) …), :ray (Q k), :relation (…)"
_KEYWORD_NAME_RE = re.compile("[a-z]+")


@attrs.define(repr=False)
class OpenList(Record):
    """A list whose ``(`` has been read and whose ``)`` has not."""

    offset: int
    #: In a position list: where its :sequence or :gappedsequence is.
    sequence: int | None = None
    #: In a :relation list: where each keyword allowed once is.
    once: dict[str, int] = attrs.Factory(dict)


@attrs.define(repr=False)
class Reading(Record):
    """The state of one reading; created by ``read_script``, updated by the parse actions."""

    #: The script, its name and its lines: places and messages as the modern reader's.
    source: SourceText
    open_lists: list[OpenList] = attrs.Factory(list)
    #: Tag name -> where its :forany names it, in declaration order.
    foranys: dict[str, int] = attrs.Factory(dict)
    #: (tag name, where) of every $tag designator and :tagmatch, in reading order.
    tag_uses: list[tuple[str, int]] = attrs.Factory(list)
    first_relation: int | None = None
    match_list: Span | None = None
    #: (form, place) of each dialect form read (X1), in reading order.
    dialect: list[tuple[str, Span]] = attrs.Factory(list)
    #: Where each ``:line`` with move numbers stands (refused under transforms).
    line_with_numbers: list[Span] = attrs.Factory(list)

    @classmethod
    def of(cls, text: str, path: str | None) -> Reading:
        return cls(SourceText(text, path))

    @property
    def text(self) -> str:
        return self.source.text

    @property
    def path(self) -> str | None:
        return self.source.path

    # -- places ------------------------------------------------------------------------

    def position(self, offset: int) -> tuple[int, int]:
        return self.source.position(offset)

    def span(self, offset: int) -> Span:
        return Span(*self.position(offset))

    def where(self, offset: int) -> str:
        line, column = self.position(offset)
        return f"{line}:{column}"

    def dialect_form(self, form: str, offset: int) -> None:
        """Note a dialect form read at ``offset`` (check names them)."""
        self.dialect.append((form, self.span(offset)))

    @property
    def innermost(self) -> OpenList:
        return self.open_lists[-1]

    # -- errors ------------------------------------------------------------------------

    def error(
        self, message: str, offset: int, text: str = "", expected: str = "", hint: str = ""
    ) -> LegacySyntaxError:
        return self.source.error(LegacySyntaxError, message, offset, text, expected, hint)

    def error_at(
        self, token: Token, message: str, expected: str = "", hint: str = ""
    ) -> LegacySyntaxError:
        return self.error(message, token.offset, token.text, expected, hint)

    # -- lists -------------------------------------------------------------------------

    def too_deep(self, offset: int, limit: int) -> LegacySyntaxError:
        return self.error(
            f"nested too deeply (limit {limit} parentheses)",
            offset,
            "(",
            hint="split the query into simpler lists",
        )

    def out_of_stack(self, offset: int) -> LegacySyntaxError:
        """Python's recursion limit, reached by a caller deep in its own stack (not by nesting)."""
        return self.error(
            "nested too deeply for the stack left to the reader (Python's recursion limit)",
            offset,
            "(",
            hint="split the query into simpler lists",
        )

    def unclosed(self, opener: int, what: str) -> LegacySyntaxError:
        return self.error(
            f"unclosed '(': the {what} opened here is never closed",
            opener,
            "(",
            expected="')'",
            hint="add the missing ')'",
        )

    def bad_head(self, token: Token, expected: str) -> LegacySyntaxError:
        if token.kind is TokenKind.END:
            return self.unclosed(self.innermost.offset, "list")
        word = token.text if token.kind is TokenKind.ATOM else ""
        if word.lower() in LIST_HEADS and word.lower() != word:
            return self.error_at(token, f"list heads are lowercase: did you mean ({word.lower()}?")
        if expected == "match" and word == "position":
            return self.error_at(
                token,
                "a script is one match list: expected '(match', found '(position'",
                hint="wrap the position lists in a match list: (match (position …))",
            )
        if word == "match":
            return self.error_at(
                token,
                "a match list cannot be nested: a script holds exactly one match list",
                hint="put the position lists directly into the one match list",
            )
        close = difflib.get_close_matches(word, [expected], n=1)
        hint = f"did you mean ({close[0]}?" if close else ""
        return self.error_at(
            token, f"expected '{expected}' after '(', found {token.describe()}", hint=hint
        )

    # -- the script --------------------------------------------------------------------

    def no_match_list(self, token: Token) -> LegacySyntaxError:
        if token.kind is TokenKind.END:
            return self.error(
                "empty script: no match list",
                0,
                expected="a match list such as (match (position Ra3))",
            )
        if token.kind is TokenKind.CLOSE:
            return self.unmatched(token)
        hint = ""
        if token.text.startswith("cql"):
            hint = "this looks like a CQL 6 script; legacy scripts start with (match"
        return self.error_at(
            token,
            f"expected '(match' at the start of the script, found {token.describe()}",
            expected="a match list such as (match (position Ra3))",
            hint=hint,
        )

    def unmatched(self, token: Token) -> LegacySyntaxError:
        return self.error_at(token, "unmatched ')'", hint="remove it")

    def second_match_list(self, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            "a script holds exactly one match list; a second one starts here",
            hint="merge the two match lists or put them into separate files",
        )

    def after_match_list(self, token: Token) -> LegacySyntaxError:
        if token.kind is TokenKind.CLOSE:
            return self.unmatched(token)
        return self.error_at(
            token,
            f"text after the end of the match list: {token.describe()}",
            hint="the match list that starts at "
            f"{self.match_list} is already closed; is there an extra ')' before this?",
        )

    def no_position_list(self, opener: int) -> LegacySyntaxError:
        return self.error(
            "the match list holds no position list",
            opener,
            "(",
            expected="at least one position list",
            hint="(match (position)) selects every game",
        )

    def stray_atom(self, token: Token, kind: ListKind) -> LegacySyntaxError:
        if kind is ListKind.MATCH:
            return self.error_at(
                token,
                f"unexpected {token.describe()} in the match list",
                expected="a match-list keyword (:pgn, :result, :forany …) or a position list",
                hint="piece designators belong in a position list: (match (position Ra3))",
            )
        return self.error_at(
            token,
            f"unexpected {token.describe()} in a :relation list",
            expected="a relation keyword such as :pattern or :missingpiececount",
        )

    # -- position lists ----------------------------------------------------------------

    def second_sequence(self, token: Token, first: int) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"a position list may hold only one :sequence or :gappedsequence "
            f"(the first is at {self.where(first)})",
            hint="combine them with :and ((position :sequence (…)) (position :sequence (…)))",
        )

    def position_list_inside_position_list(self, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            "a position list cannot stand directly inside another position list",
            hint=f"did you forget the ')' of the position list at "
            f"{self.where(self.innermost.offset)}? "
            "To combine position lists use :and ((position …) (position …))",
        )

    def list_in_position_list(self, token: Token) -> LegacySyntaxError:
        return self.error_at(token, "unexpected '(' in a position list", hint=_LISTS_USAGE)

    def only_at_top_level(self, spec: KeywordSpec, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"{spec.text} is only allowed in a position list directly inside the match list",
            hint="move it to the top-level position list",
        )

    def not_negatable(self, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"Scidb negation: {token.describe()} cannot be negated with '!'",
            hint="'!' negates a keyword that holds or fails at a position (!:check); "
            "transforms and list settings have no negation",
        )

    def optional_designator(self, spec: KeywordSpec, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"Scidb extension `{spec.text}` with a piece designator: the help leaves its "
            "meaning open",
            hint=f"to ask for a piece of its own, write it before {spec.text}",
        )

    def _offset(self, span: Span) -> int:
        """The offset in the source of ``span``'s first character."""
        return self.source.line_starts[span.line - 1] + span.column - 1

    def main_line_only(self, form: str, span: Span) -> LegacySyntaxError:
        offset = self._offset(span)
        return self.error(
            f"Scidb extension {form} with :variations: Scidb's keyword fails inside a "
            "variation, which its standard equivalent cannot say",
            offset,
            hint="search the main line only (leave out :variations)",
        )

    def fen_transformed(self, span: Span, transform: str) -> LegacySyntaxError:
        offset = self._offset(span)
        return self.error(
            f"Scidb extension `:fen` under {transform}: the help gives no image of a FEN's"
            " castling rights and en passant square under a flip or shift",
            offset,
            ":fen",
        )

    def flipcolor_with_eithercolor(self, span: Span) -> LegacySyntaxError:
        offset = self._offset(span)
        return self.error(
            "Scidb extension `:eithercolor` with a position list's :flipcolor: the help"
            " forbids it, as :eithercolor already swaps the colours of every list",
            offset,
            ":flipcolor",
        )

    def line_transformed(self, span: Span, transform: str) -> LegacySyntaxError:
        offset = self._offset(span)
        if transform in (":flipcolor", ":eithercolor"):
            why = f"with move numbers the help forbids {transform}"
        else:
            why = (
                "the help says no transform but :flipcolor acts on :line, and its own "
                "example shows one acting"
            )
        return self.error(
            f"Scidb extension `:line` under {transform}: {why}",
            offset,
            hint="write the moves as a :sequence of position lists to transform them",
        )

    def line_star_transformed(self, span: Span, transform: str) -> LegacySyntaxError:
        offset = self._offset(span)
        return self.error(
            f"Scidb extension `:line*` under {transform}: the help allows no transform "
            "keyword with a transposition-invariant line",
            offset,
            hint="write each transformed line as its own :line*",
        )

    def optional_range(self, spec: KeywordSpec, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"Scidb extension `{spec.text}` with a range: it counts the checks of the "
            "three-check variant",
        )

    def too_many_consecutive(self, token: Token, count: int) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"Scidb extension `:matchconsecutive` of {count} lists: at most "
            f"{dialects.MAX_CONSECUTIVE} are read (it is one :sequence per ordering)",
        )

    def no_lists(self, token: Token, spec: KeywordSpec) -> LegacySyntaxError:
        return self.error_at(token, f"{spec.text} needs at least one position list")

    # -- designators -------------------------------------------------------------------

    def number_as_designator(self, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"unexpected number {token.describe()} in {_LIST_NAMES[ListKind.POSITION]}",
            hint="a range has at most two numbers",
        )

    def head_as_designator(self, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token, f"{token.text!r} must follow '(' to start a list", hint=_LISTS_USAGE
        )

    def bad_atom(self, token: Token, exc: AtomError) -> LegacySyntaxError:
        return self.error(exc.message, token.offset + exc.index, token.text, exc.expected, exc.hint)

    # -- keywords ----------------------------------------------------------------------

    def bad_keyword(self, token: Token, kind: ListKind) -> LegacySyntaxError:
        """A ``:word`` (or ``!:word``) that is not a keyword of a ``kind`` list."""
        text = token.text
        if text.startswith("!:"):
            return self.error_at(
                token,
                f"Scidb negation {text}: only position-list keywords are negated",
                hint=f"in the match list write the test in a position list: "
                f"(position :not {text[1:]})",
            )
        name = text[1:]
        if not name:
            return self.error_at(token, "':' without a keyword name")
        lower = name.lower()
        if lower != name and (lower in STANDARD_NAMES or is_extension(lower)):
            return self.error_at(token, f"keywords are lowercase: did you mean :{lower}?")
        homes = homes_of(name)
        if name in DIALECT_MATCH_KEYWORDS:
            homes = {ListKind.MATCH}
        if name in DIALECT_POSITION_KEYWORDS:
            homes = {ListKind.POSITION}
        if homes:
            return self.wrong_list(token, kind, homes)
        reason = dialects.refusal(name)
        if reason is not None:
            return self.error_at(token, reason)
        if is_extension(name):
            return self.error_at(
                token,
                f"extension not supported: {text}",
                hint="Scidb / Chess Assistant extensions are recognised but not supported; "
                "use standard CQL 3 keywords",
            )
        return self.error_at(token, f"unknown keyword {text}", hint=_suggestion(name, kind))

    def wrong_list(self, token: Token, kind: ListKind, homes: set[ListKind]) -> LegacySyntaxError:
        places = " or ".join(_LIST_NAMES[home] for home in ListKind if home in homes)
        hint = ""
        if kind is ListKind.MATCH and is_extension(token.text[1:]):
            hint = f"the match-list {token.text} is a Scidb extension, not supported"
        return self.error_at(
            token, f"{token.text} belongs in {places}, not in {_LIST_NAMES[kind]}", hint=hint
        )

    def too_many_foranys(self, token: Token) -> LegacySyntaxError:
        return self.error_at(token, "at most two :forany are allowed in a match list")

    def declared_twice(self, token: Token) -> LegacySyntaxError:
        first = self.foranys[token.text]
        return self.error_at(
            token, f"tag {token.text} is declared twice (first at {self.where(first)})"
        )

    def twice_in_relation(self, spec: KeywordSpec, token: Token, first: int) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"{spec.text} may appear only once in a :relation list "
            f"(the first is at {self.where(first)})",
        )

    # -- parameters --------------------------------------------------------------------

    def missing(self, spec: KeywordSpec, found: Token, what: str) -> LegacySyntaxError:
        return self.error_at(
            found,
            f"expected {what} after {spec.text}, found {found.describe()}",
            expected=f"{spec.shape.value}, as in {spec.text} {SHAPE_EXAMPLES[spec.shape]}",
        )

    def bad_range(self, spec: KeywordSpec, token: Token) -> LegacySyntaxError:
        error = self.missing(spec, token, "a range")
        if token.text == UNLIMITED:
            error.hint = "unlimited can only be the upper bound: write 1 unlimited"
        elif token.kind is TokenKind.ATOM and token.text[:1] in "*–":
            error.hint = "Scidb's game-information ranges * and – are not supported"
        elif token.kind is TokenKind.ATOM and token.text.endswith("%"):
            error.hint = (
                "Scidb's percentage ranges are not supported: the help leaves open which"
                " pawns are the whole; write a count such as >=2"
            )
        return error

    def number_too_large(self, token: Token) -> LegacySyntaxError:
        return self.error_at(token, f"number too large (more than {MAX_DIGITS} digits)")

    def empty_range(self, first: Token, lo: int, hi: int) -> LegacySyntaxError:
        return self.error_at(
            first,
            f"empty range {lo} {hi}: the lower bound is above the upper bound",
            hint=f"write {hi} {lo}",
        )

    def empty_open_range(self, token: Token, floor: int) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"empty range {token.describe()}: no value of this keyword is that small",
            hint=f"the values start at {floor}",
        )

    def unlimited_first(self, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token, "unlimited can only be the upper bound", hint="write 1 unlimited"
        )

    def quoted(self, spec: KeywordSpec, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            "extension not supported: quoted strings (Scidb)",
            hint=f"write the word without quotes: {spec.text} {token.text.strip(QUOTE)}",
        )

    def unexpected_in_ray(self, spec: KeywordSpec, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"unexpected {token.describe()} in the {spec.text} list",
            expected="piece designators, as in :ray (Q n k)",
        )

    def short_ray(self, spec: KeywordSpec, opener: int) -> LegacySyntaxError:
        return self.error(
            f"a {spec.text} list needs at least two piece designators",
            opener,
            "(",
            expected="a ray specifier such as (Q k) or (Q n k)",
        )

    def position_list_without_parentheses(
        self, spec: KeywordSpec, token: Token
    ) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"each position list of {spec.text} needs its own parentheses",
            hint=f"write {lists_usage(spec)}",
        )

    def not_a_position_list(self, spec: KeywordSpec, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            f"expected a position list in the {spec.text} list, found {token.describe()}",
            expected="(position …)",
            hint=f"wrap it in a position list: {spec.text} ((position {token.text}))",
        )

    def list_in_relation(self, token: Token) -> LegacySyntaxError:
        return self.error_at(
            token,
            "unexpected '(' in a :relation list",
            expected="relation keywords such as :pattern",
        )

    def unreadable(self, offset: int) -> LegacySyntaxError:
        """A place the grammar has no rule for (it has one for every mistake it knows)."""
        found = TOKEN.search(self.text, offset)
        token = Token.at(found.group(), found.start()) if found else Token.end(len(self.text))
        return self.error_at(token, f"unexpected {token.describe()}")

    # -- tags (checked once the whole match list is known) -----------------------------

    def check_tags(self) -> None:
        declared = self.foranys
        uses = self.tag_uses
        if self.first_relation is not None and (declared or uses):
            offsets = [*declared.values(), *(offset for _, offset in uses)]
            raise self.error(
                "tags (:forany, $name, :tagmatch) cannot be used in a match list that holds "
                f"a :relation (at {self.where(self.first_relation)})",
                min(offsets),
            )
        for name, offset in uses:
            if name not in declared:
                names = ", ".join(sorted(declared))
                hint = (
                    f"declared tags: {names}"
                    if names
                    else f"no tag is declared; declare it in the match list: :forany {name} U"
                )
                raise self.error(f"tag {name} is not declared by :forany", offset, name, hint=hint)


def lists_usage(spec: KeywordSpec) -> str:
    return f"{spec.text} ((position …) (position …))"


def _suggestion(name: str, kind: ListKind) -> str:
    if _KEYWORD_NAME_RE.fullmatch(name) is None and ":" in name:
        return "separate keywords with spaces"
    for candidates in (KEYWORDS[kind], STANDARD_NAMES):
        close = difflib.get_close_matches(name, list(candidates), n=1)
        if close:
            return f"did you mean :{close[0]}?"
    return ""
