"""The match list and its top-level lists → a core :class:`Query`.

Settings of a top-level list (docs/architecture.md):

- scope: ``:variations`` → ``Scope.ALL``; ``:variationsonly`` → ``Scope.ALL`` and a
  ``not mainline`` constituent.  When one list needs variations every list examines
  every position, the main-line-only ones with a ``mainline`` constituent — except a
  main-line-only list that looks at following moves or positions (``:movefrom``,
  ``:sequence``, ``:relation`` …): under ``Scope.ALL`` those would also follow the
  variations that branch off the main line, so such a list keeps ``Scope.MAINLINE`` —
  for ``run``.  The CQL 6.1 form (``modern``) has one variations setting: there such a
  list gets ``Scope.ALL`` too, and :func:`main_line_only` keeps its moves and later
  positions to the main line.
- marks (L3): ``Mark.FIRST`` by default, ``:markall`` → ``ALL``, ``:noannotate`` → ``NONE``.
- ``:matchcount`` → ``TopList.matchcount``; ``:pretransformmatchcount`` → a list examined
  at the start position that asks, for some transformed list, how many positions of
  the game it matches (``initial`` and ``lo <= find all {…} <= hi``).

Match-list ``:result``, ``:year`` and ``:player`` test the game, not a position: they
become constituents of the first list that needs at least one matching position (or
of a list of their own when every list accepts zero matches).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import attrs
from cqllegacy.translator.errors import translation_error
from cqllegacy.translator.line_marks import LineMarkError, list_ends
from cqllegacy.translator.orbits import (
    Budget,
    choose_compact,
    forget_transformed_lists,
    legacy_orbit,
    transform_keywords,
)
from cqllegacy.translator.parts import (
    FALSE,
    TRUE,
    TranslationContext,
    comment,
    conjunction,
    in_range,
    last_line,
    own_line,
    untrailed,
)
from cqllegacy.translator.rewrite import (
    list_parts,
    strip_comments,
)

from cqllegacy.core import tree as core
from cqllegacy.core.transforms import forget_images, orbit
from cqllegacy.legacy import dialects
from cqllegacy.legacy import tree as lt
from cqllegacy.legacy.tree import FlagKeyword, PositionList, Range, Script
from cqllegacy.records import Record
from cqllegacy.vocab.spans import Span

__all__ = ["to_core"]


def to_core(script: Script, *, modern: bool = False) -> core.Query:
    """The core query that means what ``script`` means (decisions L1–L22).

    With ``modern`` the query is said with CQL 6.1 filters only where ``run`` has faster
    legacy-only ones (``:relation`` becomes ``echo``, and a relation into variations
    gives every list the one ``variations`` setting of CQL 6.1).

    Raises :class:`~translator.errors.TranslationError` for a script whose meaning the
    core cannot hold (see docs/compatibility.md for the cases).
    """
    try:
        return _Builder(script, modern=modern).build()
    finally:
        # The lists and images of one script's orbits are not the next script's, and what
        # a process keeps alive every garbage collection walks (the orbits the evaluator
        # expands stay in core.transforms.orbit's cache: choose_compact asked them).
        forget_transformed_lists()
        forget_images()


def _is_gamenumber(item: object) -> bool:
    return isinstance(item, lt.MatchRange) and item.keyword is lt.MatchRangeKeyword.GAMENUMBER


def _origin(pl: PositionList) -> core.Origin:
    return core.Origin("(position …)", pl.span)


def _flags(pl: PositionList) -> set[FlagKeyword]:
    return {item.keyword for item in pl.items if isinstance(item, lt.Flag)}


def _range_tests(pl: PositionList, keyword: lt.RangeKeyword) -> list[lt.RangeTest]:
    return [i for i in pl.items if isinstance(i, lt.RangeTest) and i.keyword is keyword]


def _match_elo(item: lt.MatchElo) -> core.Filter:
    """Scidb's match-list ratings: a rating read as the position-list keywords read it
    (L9), where Scidb's 0 is a player without a rating (no numeric tag).  So a range
    that holds 0 also takes an unrated player: ``lo..hi`` with ``lo <= 0`` is "not rated
    above hi" (ratings are never negative)."""
    r = item.range

    def rated(color: core.Color) -> core.Filter:
        if 0 not in r:
            return in_range(core.Elo(color), r)
        if r.hi is None:
            return TRUE
        return core.Not(core.InRange(core.Elo(color), r.hi + 1, None))

    if item.keyword is lt.MatchEloKeyword.ELO:
        return core.Or(tuple(rated(color) for color in core.Color))
    return rated(_ELO_COLORS[item.keyword])


_ELO_COLORS = {
    lt.MatchEloKeyword.WHITEELO: core.Color.WHITE,
    lt.MatchEloKeyword.BLACKELO: core.Color.BLACK,
}
_PLAYER_COLORS = {
    lt.ColorPlayerKeyword.WHITEPLAYER: core.Color.WHITE,
    lt.ColorPlayerKeyword.BLACKPLAYER: core.Color.BLACK,
}


#: The tag each of Scidb's tag-word keywords reads.
_TAG_OF_WORD = {
    lt.TagWordKeyword.EVENT: "Event",
    lt.TagWordKeyword.SITE: "Site",
    lt.TagWordKeyword.ANNOTATOR: "Annotator",
}
_MOVETEXT_FEATURES = {
    lt.GameFeatureKeyword.HASCOMMENTS: core.MovetextFeature.COMMENTS,
    lt.GameFeatureKeyword.HASVARIATIONS: core.MovetextFeature.VARIATIONS,
    lt.GameFeatureKeyword.HASANNOTATION: core.MovetextFeature.ANNOTATIONS,
}
_ROUND_PARTS = {
    lt.RoundKeyword.ROUND: core.RoundPart.ROUND,
    lt.RoundKeyword.SUBROUND: core.RoundPart.SUBROUND,
}


def _dialect_condition(item: object) -> core.Filter | None:
    """Scidb's match-list keywords that read tags (semantics: S-dialects), or None."""
    if isinstance(item, lt.TagWord):
        origin = core.Origin(f":{item.keyword.value}", item.span)
        return _tag_search(_TAG_OF_WORD[item.keyword], item.word, origin)
    if isinstance(item, lt.NamedTag):
        origin = core.Origin(":tag", item.span)
        if item.word is None:
            return core.TagSearch(item.name, origin=origin)
        return _tag_search(item.name, item.word, origin)
    if isinstance(item, lt.RoundRange):
        origin = core.Origin(f":{item.keyword.value}", item.span)
        return in_range(core.RoundNumber(_ROUND_PARTS[item.keyword], origin=origin), item.range)
    if isinstance(item, lt.EcoCodes):
        return _eco(item)
    if isinstance(item, lt.DateRange):
        return _date(item)
    if isinstance(item, lt.PlyCountRange):
        return in_range(core.PlyCount(origin=core.Origin(":plycount", item.span)), item.range)
    if isinstance(item, lt.GameFeature):
        origin = core.Origin(f":{item.keyword.value}", item.span)
        return core.GameHas(_MOVETEXT_FEATURES[item.keyword], origin=origin)
    if isinstance(item, lt.Terminations):
        values = dialects.termination_values(item.words)
        assert not isinstance(values, str), "the reader checks the words"
        origin = core.Origin(":termination", item.span)
        return core.TagValueIn("Termination", values, origin=origin)
    return None


def _tag_search(name: str, word: str, origin: core.Origin) -> core.Filter:
    # A word without cased letters needs no case folding (nor CQL 6.1's lowercase).
    if word.lower() == word.upper():
        return core.TagSearch(name, word, origin=origin)
    return core.TagSearch(name, word.lower(), ignore_case=True, origin=origin)


def _eco(item: lt.EcoCodes) -> core.Filter:
    origin = core.Origin(":eco", item.span)
    if item.codes in dialects.NO_VALUE:
        return core.Not(core.EcoRange("A00", "E99", origin=origin))
    ranges = dialects.eco_ranges(item.codes)
    assert ranges is not None, "the reader checks the codes"
    members = tuple(core.EcoRange(lo, hi, origin=origin) for lo, hi in ranges)
    return members[0] if len(members) == 1 else core.Or(members)


def _date(item: lt.DateRange) -> core.Filter:
    origin = core.Origin(":date", item.span)
    if item.text == dialects.ANY_VALUE:
        return core.DateIn(None, None, origin=origin)  # any date with a known year
    if item.text in dialects.NO_VALUE:
        return core.Not(core.DateIn(None, None, origin=origin))
    bounds = dialects.date_range(item.text)
    assert not isinstance(bounds, str), "the reader checks the dates"
    return core.DateIn(*bounds, origin=origin)


def _bounds(r: Range) -> tuple[int, int | None]:
    return (r.lo, r.hi)


#: Constructs that look at the moves and positions following the current one (a
#: relation written as echo names its targets itself: ``relations=False``).
def _follows_the_game(item: object, *, relations: bool = True) -> bool:
    if isinstance(item, lt.MoveTest) or (relations and isinstance(item, lt.Relation)):
        return True
    if isinstance(item, lt.Flag):
        return item.keyword in (FlagKeyword.ENPASSANT, FlagKeyword.NOENPASSANT)
    if isinstance(item, lt.RangeTest):
        return item.keyword is lt.RangeKeyword.PRETRANSFORMMATCHCOUNT
    if isinstance(item, lt.ListOfLists):
        if item.keyword in (lt.ListKeyword.SEQUENCE, lt.ListKeyword.GAPPEDSEQUENCE):
            return True
        return any(_follows_the_game(i, relations=relations) for pl in item.lists for i in pl.items)
    return False


def _relation_into_variations(pl: PositionList) -> bool:
    """Whether a relation in ``pl`` (or its nested lists) compares with variation positions."""
    for item in pl.items:
        if isinstance(item, lt.Relation) and any(
            isinstance(part, lt.RelationFlag)
            and part.keyword
            in (lt.RelationFlagKeyword.VARIATIONS, lt.RelationFlagKeyword.VARIATIONSONLY)
            for part in item.items
        ):
            return True
        if isinstance(item, lt.ListOfLists) and any(
            _relation_into_variations(n) for n in item.lists
        ):
            return True
    return False


_Placed = list[list[core.Filter]]


@attrs.define(repr=False)
class _Condition(Record):
    """A match-list item that tests the game (or a comment among them)."""

    filter: core.Filter
    is_comment: bool


class _Builder:
    def __init__(self, script: Script, *, modern: bool = False) -> None:
        self.script = script
        self.modern = modern
        self.path = script.path
        self.budget = Budget(path=script.path)

    def error(self, message: str, span: Span, hint: str = "") -> Exception:
        return translation_error(message, span, path=self.path, hint=hint)

    # --- the match list ----------------------------------------------------------------

    def build(self) -> core.Query:
        match = self.script.match
        lists = match.position_lists()
        header = self._header()
        tags = tuple(self._tags())
        prefixes, suffixes, conditions, trailing = self._placements(lists)
        self._check_shared_accumulators(lists)
        any_variations = any(self._wants_variations(pl) for pl in lists)
        if self.modern and any(_relation_into_variations(pl) for pl in lists):
            # echo sees variation positions only under the variations header.
            any_variations = True
        toplists = [self._top_list(pl, prefixes[i], any_variations) for i, pl in enumerate(lists)]
        toplists = [
            attrs.evolve(t, body=_append(t.body, suffix)) if suffix else t
            for t, suffix in zip(toplists, suffixes, strict=True)
        ]
        either = _either_color(self.script.match)
        forms = 1
        if either is not None:
            if self._either_color_apart(either, toplists, conditions, tags):
                toplists, conditions = self._either_color_lists(toplists, conditions)
            else:
                forms = 2
        toplists = self._place_conditions(toplists, conditions)
        leading = tuple(comment(c.text).text for c in self.script.leading)
        if trailing:
            if toplists:
                last = toplists[-1]
                toplists[-1] = attrs.evolve(last, body=_append(last.body, trailing))
            else:
                leading += tuple(c.text for c in trailing)
        if forms == 2:
            # The written match, then its colour image: the first that matches marks.
            toplists += [attrs.evolve(t, body=_color_image(t.body)) for t in toplists]
        final = tuple(_canonical(t) for t in toplists)
        return core.Query(header, final, tags, leading, forms=forms)

    def _check_shared_accumulators(self, lists: Sequence[PositionList]) -> None:
        """Each top-level list has its own accumulators: one list cannot read another's."""
        accumulated = [_names(pl, lt.Accumulate) for pl in lists]
        for own, pl in zip(accumulated, lists, strict=True):
            for place in _places(pl):
                for item in place.pl.items:
                    if not isinstance(item, lt.SumRange) or item.name in own:
                        continue
                    if any(item.name in other for other in accumulated if other is not own):
                        raise self.error(
                            f":sumrange {item.name} reads an accumulator of another top-level "
                            "list: each top-level list is evaluated at its own positions, so "
                            "the value it would read is not defined",
                            item.span,
                        )

    def _header(self) -> core.Header:
        inputs: list[str] = []
        output: str | None = None
        gamenumber: tuple[int, int | None] | None = None
        for item in self.script.match.items:
            if isinstance(item, lt.MatchPath):
                if item.keyword is lt.MatchPathKeyword.PGN:
                    inputs.append(item.path)
                elif output is not None:
                    raise self.error("a match list may name only one :output file", item.span)
                else:
                    output = item.path
            elif _is_gamenumber(item):
                assert isinstance(item, lt.MatchRange)
                gamenumber = _intersect(gamenumber, _bounds(item.range))
        return core.Header(tuple(inputs), output, gamenumber)

    def _tags(self) -> Iterator[core.TagDeclaration]:
        for item in self.script.match.items:
            if isinstance(item, lt.ForAny):
                if item.designator.tag is not None:
                    raise self.error(":forany needs piece types, not a tag", item.designator.span)
                yield core.TagDeclaration(
                    item.name, item.designator.types, origin=core.Origin(":forany", item.span)
                )

    def _placements(
        self, lists: Sequence[PositionList]
    ) -> tuple[_Placed, _Placed, list[_Condition], list[core.Comment]]:
        """Comments of the match list go before the next position list, or to the end of
        the list on whose last line they stand (after the last list: to its end); game
        conditions are collected with the comments before the first list, in order."""
        prefixes: _Placed = [[] for _ in lists]
        suffixes: _Placed = [[] for _ in lists]
        conditions: list[_Condition] = []
        pending: list[core.Comment] = []
        index = 0
        previous_end = 0
        condition_line = 0  # the line of the game condition just before, if any
        for item in self.script.match.items:
            if isinstance(item, lt.PositionList):
                prefixes[index] = list(pending)
                pending = []
                index += 1
                previous_end = last_line(item)
            elif isinstance(item, lt.Comment):
                if index == 0:
                    # On the line of a game condition, it annotates that condition.
                    on_its_line = condition_line == item.span.line
                    conditions.append(_Condition(comment(item.text, trailing=on_its_line), True))
                elif item.span.line == previous_end and not pending:
                    # A comment on the line where a list ends belongs to that list.
                    suffixes[index - 1].append(comment(item.text, trailing=True))
                else:
                    pending.append(comment(item.text))
            else:
                condition = self._condition(item)
                condition_line = last_line(item) if condition is not None else 0
                if condition is not None:
                    conditions.append(_Condition(condition, False))
        after = list(self.script.trailing)
        trailing = pending + [comment(c.text) for c in after]
        if after and not pending and index and after[0].span.line == previous_end:
            # After the match list's `)` on the line where the last list ends: that list's.
            trailing[0] = comment(after[0].text, trailing=True)
        return prefixes, suffixes, conditions, trailing

    def _condition(self, item: object) -> core.Filter | None:
        if isinstance(item, lt.NegatedMatchItem):
            # Scidb's `!:keyword`: the game fails that condition.
            inner = self._condition(item.item)
            assert inner is not None, "the reader negates game conditions only"
            return core.Not(inner)
        if isinstance(item, lt.MatchResult):
            return core.Result(item.result)
        if isinstance(item, lt.MatchRange) and item.keyword is lt.MatchRangeKeyword.YEAR:
            year = core.NumericValue(core.NumericKeyword.YEAR)
            return core.InRange(year, item.range.lo, item.range.hi)
        if isinstance(item, lt.MatchElo):
            return _match_elo(item)
        if isinstance(item, lt.ColorPlayer):
            # Scidb: that player's tag contains the word, ignoring case.
            origin = core.Origin(f":{item.keyword.value}", item.span)
            color = _PLAYER_COLORS[item.keyword]
            if item.name.lower() == item.name.upper():
                return core.Player(item.name, color, origin=origin)
            return core.Player(item.name.lower(), color, ignore_case=True, origin=origin)
        dialect = _dialect_condition(item)
        if dialect is not None:
            return dialect
        if isinstance(item, lt.Player):
            # L10: case-insensitive; the distinction is moot without cased letters.
            origin = core.Origin(":player", item.span)
            if item.name.lower() == item.name.upper():
                return core.Player(item.name, origin=origin)
            # One test per colour: CQL 6.1 documents the string value of ``player white``
            # and ``player black`` but not of a colourless ``player``.
            text = item.name.lower()
            return core.Or(
                tuple(
                    core.Player(text, color, ignore_case=True, origin=origin)
                    for color in (core.Color.WHITE, core.Color.BLACK)
                )
            )
        return None

    def _place_conditions(
        self, toplists: list[core.TopList], conditions: list[_Condition]
    ) -> list[core.TopList]:
        """Put the game conditions into the first list that needs a matching position:
        in a list that may match nowhere (``:matchcount 0 …``) they would let through a
        game that fails them.  When every list may match nowhere, they get a list of
        their own.  Comments before the first list stay with it."""
        out = list(toplists)
        tests = [c.filter for c in conditions if not c.is_comment]
        comments = [c.filter for c in conditions if c.is_comment]
        host = next(
            (i for i, t in enumerate(out) if t.matchcount is None or t.matchcount[0] >= 1),
            None,
        )
        if host is None and tests:
            scope = out[0].scope if out else core.Scope.MAINLINE
            out.append(core.TopList(core.Compound(tuple(tests)), mark=core.Mark.NONE, scope=scope))
            tests = []
            host = len(out) - 1
        if host == 0:
            out[0] = _prepend_to(out[0], [c.filter for c in conditions])
        elif out:
            # The tests go elsewhere: their comments no longer follow them.
            out[0] = _prepend_to(out[0], [own_line(c) for c in comments])
            if host is not None:
                out[host] = _prepend_to(out[host], tests)
        return out

    def _either_color_apart(
        self,
        either: lt.EitherColor,
        toplists: list[core.TopList],
        conditions: list[_Condition],
        tags: tuple[core.TagDeclaration, ...],
    ) -> bool:
        """Scidb's ``:eithercolor``: whether one ``flipcolor {C B}`` per list says it (C
        the game conditions, B a list's body), for the written match or its colour
        image, one for the whole match: when C and its image exclude each other (a
        decisive ``:result``, disjoint ratings) or every B is its own image.  Otherwise
        the two forms of the whole match are tried in turn (``Query.forms``): CQL 6.1
        writes them ``{…} or {…}`` in the lists form (``modern.encoding``)."""
        if tags:
            raise self.error(
                f"{_EITHER} with :forany: the help does not say whether the colour image"
                " swaps a tag's pieces (`:forany n N` as `:forany n n`) or keeps them, as"
                " a list's transforms keep a tag's piece (L12)",
                either.span,
            )
        for pl in self.script.match.position_lists():
            for place in _places(pl):
                relation = next((i for i in place.pl.items if isinstance(i, lt.Relation)), None)
                if relation is not None:
                    # Its missing and new counts ignore the list's transforms (L18).
                    raise self.error(
                        f"{_EITHER} with :relation: a relation's colour image is not defined",
                        relation.span,
                    )
        tests = [c.filter for c in conditions if not c.is_comment]
        if _contradict([*tests, *(_color_image(test) for test in tests)]):
            return True
        # Every list its own image: both forms mark the same positions.
        return all(len(orbit(core.TransformKind.FLIPCOLOR, top.body)) == 1 for top in toplists)

    def _either_color_lists(
        self, toplists: list[core.TopList], conditions: list[_Condition]
    ) -> tuple[list[core.TopList], list[_Condition]]:
        """Each list as ``flipcolor {C B}`` (see :meth:`_either_color_apart`)."""
        tests = [c.filter for c in conditions if not c.is_comment]
        flipped = [
            attrs.evolve(top, body=core.Compound((_both_colors(_prepend(top.body, tests)),)))
            for top in toplists
        ]
        kept = [c for c in conditions if c.is_comment]
        if tests and not any(t.matchcount is None or t.matchcount[0] >= 1 for t in toplists):
            # Every list may match nowhere: the conditions get a list of their own.
            kept.append(_Condition(_both_colors(core.Compound(tuple(tests))), False))
        return flipped, kept

    # --- one top-level list --------------------------------------------------------------

    def _wants_variations(self, pl: PositionList) -> bool:
        flags = _flags(pl)
        if {FlagKeyword.VARIATIONS, FlagKeyword.VARIATIONSONLY} <= flags:
            item = next(
                i
                for i in pl.items
                if isinstance(i, lt.Flag) and i.keyword is FlagKeyword.VARIATIONSONLY
            )
            raise self.error(
                ":variations and :variationsonly contradict each other in one list", item.span
            )
        return bool(flags & {FlagKeyword.VARIATIONS, FlagKeyword.VARIATIONSONLY})

    def _scope(
        self, pl: PositionList, any_variations: bool
    ) -> tuple[core.Scope, list[core.Filter]]:
        flags = _flags(pl)
        mainline = core.Simple(core.Keyword.MAINLINE)
        if FlagKeyword.VARIATIONSONLY in flags:
            return core.Scope.ALL, [core.Not(mainline)]
        if FlagKeyword.VARIATIONS in flags:
            return core.Scope.ALL, []
        follows = any(_follows_the_game(i, relations=not self.modern) for i in pl.items)
        if not any_variations or (follows and not self.modern):
            return core.Scope.MAINLINE, []
        # CQL 6.1 has one variations setting: a main-line list among lists that examine
        # variations keeps to the main line with `mainline` (and, when it looks at later
        # moves, with main_line_only).
        return core.Scope.ALL, [mainline]

    def _keeps_to_mainline(self, pl: PositionList, scope: core.Scope) -> bool:
        """Whether ``pl`` is a main-line list examined under the variations setting whose
        next moves and later positions must be kept to the main line."""
        in_variations = {FlagKeyword.VARIATIONS, FlagKeyword.VARIATIONSONLY} & _flags(pl)
        return scope is core.Scope.ALL and not in_variations

    def _mark(self, pl: PositionList) -> core.Mark:
        flags = _flags(pl)
        if FlagKeyword.NOANNOTATE in flags:
            return core.Mark.NONE
        if FlagKeyword.MARKALL in flags:
            return core.Mark.ALL
        return core.Mark.FIRST

    def _top_list(
        self, pl: PositionList, prefix: list[core.Filter], any_variations: bool
    ) -> core.TopList:
        scope, scope_parts = self._scope(pl, any_variations)
        in_variations = {FlagKeyword.VARIATIONS, FlagKeyword.VARIATIONSONLY} & _flags(pl)
        keep_to_mainline = self._keeps_to_mainline(pl, scope)
        ctx = TranslationContext(
            # Rewritten for one continuation, then kept to it by main_line_only.
            scope=core.Scope.MAINLINE if keep_to_mainline else scope,
            budget=self.budget,
            path=self.path,
            modern=self.modern,
            sources_on_mainline=not in_variations,
        )
        check_accumulators(pl, self.path)
        counts = _range_tests(pl, lt.RangeKeyword.MATCHCOUNT)
        pretransform = _range_tests(pl, lt.RangeKeyword.PRETRANSFORMMATCHCOUNT)
        if len(counts) + len(pretransform) > 1:
            extra = (counts + pretransform)[1]
            raise self.error(
                "a position list takes one :matchcount or :pretransformmatchcount", extra.span
            )
        mark = self._mark(pl)
        kept = main_line_only if keep_to_mainline else _unchanged
        pretransformed = bool(pretransform and transform_keywords(pl))
        end = self._line_end(pl, mark, pretransformed, bool(in_variations))
        if pretransformed:
            body = self._pretransform_body(pl, pretransform[0].range, scope_parts, ctx)
            body = [kept(f) for f in body]
            return core.TopList(_body(prefix, body), None, mark, scope, origin=_origin(pl))
        matchcount = None
        if counts or pretransform:
            matchcount = _bounds((counts + pretransform)[0].range)
        parts = [kept(f) for f in list_parts(pl, ctx, top=True)]
        return core.TopList(
            _body([*prefix, *scope_parts], parts),
            matchcount,
            mark,
            scope,
            origin=_origin(pl),
            mark_end=end,
        )

    def _line_end(
        self, pl: PositionList, mark: core.Mark, pretransformed: bool, in_variations: bool
    ) -> core.LineEnd | None:
        """Where the list's mark goes when a ``:line`` moves it (X3; line_marks)."""
        if mark is core.Mark.NONE:
            return None
        try:
            ends = list_ends(pl)
        except LineMarkError as exc:
            raise exc.error(self.path) from None
        if not ends:
            return None
        ((plies, span),) = ends.items()
        if pretransformed or in_variations:
            why = "with :pretransformmatchcount" if pretransformed else "with :variations"
            raise LineMarkError(f"in a list {why}", span).error(self.path)
        return core.LineEnd(plies, origin=core.Origin("`:line`", span))

    def _pretransform_body(
        self, pl: PositionList, r: Range, scope_parts: list[core.Filter], ctx: TranslationContext
    ) -> list[core.Filter]:
        """``initial`` and: for some transform T, T(list) matches a number of positions of
        the game in R (``lo <= find all {T(list)} <= hi``), written with a modern
        transform where that provably means the same."""
        keep = tuple(i for i in pl.items if not _is_pretransform_setting(i))
        comments, stripped = strip_comments(attrs.evolve(pl, items=keep))

        def options_for(keywords: tuple[lt.TransformKeyword, ...]) -> list[core.Filter]:
            options: dict[core.Filter, None] = {}
            for member in legacy_orbit(stripped, keywords, self.budget, pl.span):
                body = conjunction([*scope_parts, *list_parts(member, ctx, top=True)])
                if body == FALSE:
                    # No position matches: a count of 0.
                    options[TRUE if 0 in r else FALSE] = None
                else:
                    options[core.InRange(core.Find(body, all=True), r.lo, r.hi)] = None
            options.pop(FALSE, None)
            return list(options)

        keywords = transform_keywords(pl)
        choices = options_for(keywords)
        if TRUE in choices or not choices:
            test: core.Filter = TRUE if TRUE in choices else FALSE
        elif len(choices) == 1:
            test = choices[0]
        else:
            compact = choose_compact(keywords, choices, options_for)
            test = compact if compact is not None else core.Or(tuple(choices))
        hoisted = [comment(c.text) for c in comments]
        return [*hoisted, core.Simple(core.Keyword.INITIAL), test]


_MAINLINE = core.Simple(core.Keyword.MAINLINE)
_EITHER = "Scidb extension `:eithercolor`"


def _either_color(match: lt.MatchList) -> lt.EitherColor | None:
    return next((i for i in match.items if isinstance(i, lt.EitherColor)), None)


def _color_image(f: core.Filter) -> core.Filter:
    return orbit(core.TransformKind.FLIPCOLOR, f)[-1]


def _contradict(tests: Sequence[core.Filter]) -> bool:
    """Whether no game passes all of ``tests`` (game conditions), by a sufficient rule:
    two different results, two disjoint ranges of one value, or a range inside a range
    the value must not lie in (a value is one number per game).

    >>> from cqllegacy.vocab.results import GameResult
    >>> white = core.Elo(core.Color.WHITE)
    >>> _contradict([core.Result(GameResult("1-0")), core.Result(GameResult("0-1"))])
    True
    >>> _contradict([core.InRange(white, 2600, None), core.Not(core.InRange(white, 2301, None))])
    True
    >>> _contradict([core.InRange(white, 2600, None), core.InRange(white, 2000, 2700)])
    False
    """
    results = {test.result for test in tests if isinstance(test, core.Result)}
    if len(results) > 1:
        return True
    inside = [(t.value, t.lo, t.hi) for t in tests if isinstance(t, core.InRange)]
    outside = [
        (t.arg.value, t.arg.lo, t.arg.hi)
        for t in tests
        if isinstance(t, core.Not) and isinstance(t.arg, core.InRange)
    ]
    for value, lo, hi in inside:
        for other, lo2, hi2 in inside:
            if other == value and not _overlap(lo, hi, lo2, hi2):
                return True
        for other, lo2, hi2 in outside:
            if other == value and _within(lo, hi, lo2, hi2):
                return True
    return False


def _overlap(lo: int | None, hi: int | None, lo2: int | None, hi2: int | None) -> bool:
    below = hi is not None and lo2 is not None and hi < lo2
    above = lo is not None and hi2 is not None and hi2 < lo
    return not (below or above)


def _within(lo: int | None, hi: int | None, lo2: int | None, hi2: int | None) -> bool:
    """Whether ``lo..hi`` lies inside ``lo2..hi2`` (None: open)."""
    low = lo2 is None or (lo is not None and lo >= lo2)
    high = hi2 is None or (hi is not None and hi <= hi2)
    return low and high


def _both_colors(f: core.Filter) -> core.Filter:
    return core.Transform(core.TransformKind.FLIPCOLOR, f)


def _unchanged(f: core.Filter) -> core.Filter:
    return f


def _on_mainline(f: core.Filter) -> core.Filter:
    items = f.items if isinstance(f, core.Compound) else (f,)
    return core.Compound((_MAINLINE, *items))


def main_line_only(f: core.Filter) -> core.Filter:
    """``f`` (at a main-line position) with its next moves and later positions kept to the
    main line, for a script examined with variations: the next move is the move that
    produced the following main-line position (``line --> true --> {mainline move
    previous …}``), and every position a ``line`` or ``find`` reaches is on the main line.
    A relation's ``echo`` names its targets itself.
    """

    def keep(node: core.Filter) -> core.Filter:
        if isinstance(node, core.Move) and not node.previous:
            following = _on_mainline(attrs.evolve(node, previous=True))
            return core.Line((core.LineStep(TRUE), core.LineStep(following)))
        if isinstance(node, core.Line):
            steps = node.steps
            return attrs.evolve(
                node, steps=tuple(attrs.evolve(s, filter=_on_mainline(s.filter)) for s in steps)
            )
        if isinstance(node, core.Find):
            return attrs.evolve(node, arg=_on_mainline(node.arg))
        return node

    return _transform_outside_echo(f, keep)


def _transform_outside_echo(
    f: core.Filter, fn: Callable[[core.Filter], core.Filter]
) -> core.Filter:
    if isinstance(f, core.Echo):
        return f
    return fn(f.map_children(lambda child: _transform_outside_echo(child, fn)))


def _is_pretransform_setting(item: object) -> bool:
    """Items a transformed copy of a ``:pretransformmatchcount`` list leaves out."""
    if isinstance(item, lt.Transform):
        return True
    return isinstance(item, lt.RangeTest) and item.keyword is lt.RangeKeyword.PRETRANSFORMMATCHCOUNT


# --------------------------------------------------------------------------------------
# Accumulators: where :sumrange can be given an exact meaning
# --------------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class _Place(Record):
    pl: PositionList
    ancestors: tuple[PositionList, ...]
    in_sequence: bool


def _places(
    pl: PositionList, ancestors: tuple[PositionList, ...] = (), in_sequence: bool = False
) -> Iterator[_Place]:
    yield _Place(pl, ancestors, in_sequence)
    for item in pl.items:
        if isinstance(item, lt.ListOfLists):
            nested_in_sequence = in_sequence or item.keyword in (
                lt.ListKeyword.SEQUENCE,
                lt.ListKeyword.GAPPEDSEQUENCE,
            )
            for nested in item.lists:
                yield from _places(nested, (*ancestors, pl), nested_in_sequence)


def _names(pl: PositionList, kind: type[lt.Accumulate | lt.SumRange]) -> set[str]:
    """Names used by ``:accumulate`` (or ``:sumrange``) anywhere in a top-level list."""
    return {i.name for place in _places(pl) for i in place.pl.items if isinstance(i, kind)}


def _negated(pl: PositionList) -> bool:
    return FlagKeyword.NOT in _flags(pl)


def check_accumulators(top: PositionList, path: str | None) -> None:
    """Refuse the uses of ``:accumulate``/``:sumrange`` whose value would depend on the
    order of evaluation (not inside ``:not`` or sequences; a ``:sumrange`` sees the
    accumulations made while its own list is evaluated once; semantics: S-accumulators)."""
    places = list(_places(top))
    _check_one_way_of_counting(places, path)
    for place in places:
        # Once per list, not per item: a list of n items would cost n² (issue 20).
        accumulates = any(isinstance(item, lt.Accumulate) for item in place.pl.items)
        negated = accumulates and any(_negated(p) for p in (*place.ancestors, place.pl))
        for item in place.pl.items:
            if isinstance(item, lt.Accumulate) and (place.in_sequence or negated):
                raise translation_error(
                    ":accumulate inside :not, :sequence or :gappedsequence has no defined count: "
                    "the legacy language forbids it there, as what it adds would depend on how "
                    "far the program evaluates the negated or sequenced lists",
                    item.span,
                    path=path,
                )
            if isinstance(item, lt.SumRange):
                _check_sumrange(item, place, places, path)


def _check_one_way_of_counting(places: list[_Place], path: str | None) -> None:
    """A name is counted by ``:accumulate`` or by Scidb's ``:accumulate*``, not both: one
    count and two counts per colour cannot be one accumulator."""
    each = {i.name: i for p in places for i in p.pl.items if isinstance(i, lt.AccumulateEach)}
    for place in places:
        for item in place.pl.items:
            if type(item) is lt.Accumulate and item.name in each:
                raise translation_error(
                    f":accumulate {item.name} and :accumulate* {item.name} (at "
                    f"{each[item.name].span.line}:{each[item.name].span.column}) count one "
                    "accumulator in two ways: once, and once per colour",
                    item.span,
                    path=path,
                )


def _check_sumrange(
    item: lt.SumRange, place: _Place, places: list[_Place], path: str | None
) -> None:
    if place.in_sequence or any(transform_keywords(p) for p in place.ancestors):
        raise translation_error(
            f":sumrange {item.name} in a list evaluated more than once per position "
            "(inside a transformed list or a sequence) has no defined value: accumulators are "
            "not reset between those evaluations, so what it reads depends on the order in "
            "which the legacy program made them, which no source defines",
            item.span,
            path=path,
        )
    for other in places:
        accumulates = any(
            isinstance(i, lt.Accumulate) and i.name == item.name for i in other.pl.items
        )
        inside = other.pl is place.pl or any(a is place.pl for a in other.ancestors)
        if accumulates and not inside:
            raise translation_error(
                f":sumrange {item.name} would depend on the order in which lists are "
                f"evaluated: :accumulate {item.name} at {_accumulate_span(other.pl, item.name)} "
                "is outside the list of the :sumrange",
                item.span,
                path=path,
            )


def _accumulate_span(pl: PositionList, name: str) -> Span:
    return next(i.span for i in pl.items if isinstance(i, lt.Accumulate) and i.name == name)


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def cql_variable_names(names: Sequence[str]) -> dict[str, str]:
    """A CQL piece-variable name for each legacy tag name: the name itself where CQL
    reads it as a variable, else ``tag_NAME`` (``a`` would read as black pieces, ``find``
    as a keyword), with a number added where that is taken.

    >>> cql_variable_names(["rook", "a", "find", "a1"])
    {'rook': 'rook', 'a': 'tag_a', 'find': 'tag_find', 'a1': 'tag_a1'}
    """
    # Imported here: a run without tags never loads the CQL 6 reader and printer.
    from cqllegacy.modern.vocabulary import is_variable_name

    chosen: dict[str, str] = {}
    taken = {name for name in names if is_variable_name(name)}
    for name in names:
        if is_variable_name(name):
            chosen[name] = name
            continue
        candidate, number = f"tag_{name}", 1
        while candidate in taken or not is_variable_name(candidate):
            number += 1
            candidate = f"tag_{name}_{number}"
        taken.add(candidate)
        chosen[name] = candidate
    return chosen


def cql_tag_names(query: core.Query) -> core.Query:
    """``query`` with its tags named as CQL can write them (:func:`cql_variable_names`)."""
    if not query.tags:
        return query
    names = cql_variable_names([tag.name for tag in query.tags])
    if all(old == new for old, new in names.items()):
        return query

    def rename(node: core.Filter) -> core.Filter:
        if isinstance(node, core.PieceVariable) and node.name in names:
            return core.PieceVariable(names[node.name])
        return node

    return attrs.evolve(
        query,
        tags=tuple(attrs.evolve(tag, name=names[tag.name]) for tag in query.tags),
        lists=tuple(attrs.evolve(t, body=t.body.transform(rename)) for t in query.lists),
    )


def _intersect(
    a: tuple[int, int | None] | None, b: tuple[int, int | None]
) -> tuple[int, int | None]:
    if a is None:
        return b
    hi = b[1] if a[1] is None else (a[1] if b[1] is None else min(a[1], b[1]))
    return (max(a[0], b[0]), hi)


def _body(prefix: Sequence[core.Filter], parts: Sequence[core.Filter]) -> core.Compound:
    items = [*prefix, *(untrailed(parts) if prefix else parts)]
    if all(isinstance(i, core.Comment) for i in items):
        items.append(TRUE)
    return core.Compound(tuple(items))


def _prepend(body: core.Filter, items: Sequence[core.Filter]) -> core.Filter:
    if not items:
        return body
    assert isinstance(body, core.Compound)
    rest = body.items
    if rest == (TRUE,):
        rest = ()
    return _body(items, rest)


def _canonical(toplist: core.TopList) -> core.TopList:
    """A body of one constituent is that constituent (as CQL 6 text reads back)."""
    body = toplist.body
    if isinstance(body, core.Compound) and len(body.items) == 1:
        return attrs.evolve(toplist, body=body.items[0])
    return toplist


def _prepend_to(toplist: core.TopList, items: Sequence[core.Filter]) -> core.TopList:
    return attrs.evolve(toplist, body=_prepend(toplist.body, items))


def _append(body: core.Filter, items: Sequence[core.Filter]) -> core.Filter:
    assert isinstance(body, core.Compound)
    return core.Compound((*body.items, *items))
