"""The shared core: a filter tree shaped after CQL 6.1.

Both paths of the product end here: the translator turns a legacy script into a
:class:`Query`, the modern reader turns CQL 6 text into one, the evaluator runs it
and the printer writes it as CQL 6 text.  Nodes are frozen, slotted ``attrs``
classes; equality is structural, so ``print → read`` round trips can be checked
with ``==`` and orbit members de-duplicated with a ``set``.

Values follow CQL: a *set filter* has a square set (``int`` bitboard) and matches
when it is non-empty; a *numeric filter* has an ``int``; a *logical filter* only
matches or not.  A filter that fails has no value.

A few nodes exist because the legacy language needs them and CQL 6.1 text cannot
say them (:class:`Relation`, :class:`TagDeclaration` users such as
:class:`TaggedPiece`); they carry ``MODERN = False`` and an ``origin`` naming the
legacy construct, so the printer can refuse them with a precise message (T1).

This module gathers the tree; its parts live in modules of their own:
:mod:`cqllegacy.core.declarations` (what every node class declares, the tree's API),
then the node classes by family (:mod:`cqllegacy.core.set_nodes`,
:mod:`cqllegacy.core.number_nodes`, :mod:`cqllegacy.core.logic_nodes`,
:mod:`cqllegacy.core.line_nodes`, :mod:`cqllegacy.core.position_nodes`,
:mod:`cqllegacy.core.legacy_nodes`) and :mod:`cqllegacy.core.query`.

>>> from cqllegacy.vocab.pieces import types_of
>>> knight = PieceSet(types_of("N"), 1 << 27)
>>> flip = Transform(TransformKind.FLIP, Compound((knight,)))
>>> flip == Transform(TransformKind.FLIP, Compound((knight,)))
True
"""

from __future__ import annotations

from cqllegacy.core.declarations import (
    ANY_FILTER,
    CORE,
    CORE_NODE_MODULES,
    DECLARED_FACTS,
    NO_OPERANDS,
    NUMERIC,
    POSITIONS,
    SETS,
    DeclarationError,
    Filter,
    Kind,
    LineStep,
    Origin,
    Precedence,
    Reads,
    Syntax,
    Transforms,
    bare_words,
    by_field,
    node_classes,
    origin_field,
)
from cqllegacy.core.legacy_nodes import (
    LegacyOnly,
    RayCount,
    Relation,
    RelationScope,
    RelationSideToMove,
)
from cqllegacy.core.line_nodes import (
    Find,
    Line,
    LineGroup,
    Transform,
    TransformKind,
)
from cqllegacy.core.logic_nodes import (
    And,
    Comment,
    Compound,
    Keyword,
    Not,
    Or,
    Player,
    Result,
    SideToMove,
    Simple,
    TagContains,
    TagName,
)
from cqllegacy.core.number_nodes import (
    Arith,
    ArithOp,
    Color,
    Compare,
    CompareOp,
    Count,
    Elo,
    InRange,
    Negate,
    Number,
    NumericKeyword,
    NumericValue,
    Power,
    chain_value,
)
from cqllegacy.core.position_nodes import (
    VARIABLES,
    Ancestor,
    AtPosition,
    Echo,
    PositionIntersection,
    PositionVariable,
)
from cqllegacy.core.query import (
    Header,
    Mark,
    Query,
    Scope,
    TagDeclaration,
    TopList,
)
from cqllegacy.core.set_nodes import (
    AttackedBy,
    Attacks,
    Between,
    Castling,
    Complement,
    DirectionSet,
    InSet,
    Intersection,
    Move,
    PawnFeature,
    PawnStructure,
    PieceLoop,
    PieceSet,
    PieceVariable,
    Ray,
    SquareColor,
    SquareLoop,
    SquareVariable,
    Union,
    XRay,
)

__all__ = [
    "ANY_FILTER",
    "CORE",
    "CORE_NODE_MODULES",
    "DECLARED_FACTS",
    "NO_OPERANDS",
    "NUMERIC",
    "POSITIONS",
    "SETS",
    "VARIABLES",
    "Ancestor",
    "And",
    "Arith",
    "ArithOp",
    "AtPosition",
    "AttackedBy",
    "Attacks",
    "Between",
    "Castling",
    "Color",
    "Comment",
    "Compare",
    "CompareOp",
    "Complement",
    "Compound",
    "Count",
    "DeclarationError",
    "DirectionSet",
    "Echo",
    "Elo",
    "Filter",
    "Find",
    "Header",
    "InRange",
    "InSet",
    "Intersection",
    "Keyword",
    "Kind",
    "LegacyOnly",
    "Line",
    "LineGroup",
    "LineStep",
    "Mark",
    "Move",
    "Negate",
    "Not",
    "Number",
    "NumericKeyword",
    "NumericValue",
    "Or",
    "Origin",
    "PawnFeature",
    "PawnStructure",
    "PieceLoop",
    "PieceSet",
    "PieceVariable",
    "Player",
    "PositionIntersection",
    "PositionVariable",
    "Power",
    "Precedence",
    "Query",
    "Ray",
    "RayCount",
    "Reads",
    "Relation",
    "RelationScope",
    "RelationSideToMove",
    "Result",
    "Scope",
    "SideToMove",
    "Simple",
    "SquareColor",
    "SquareLoop",
    "SquareVariable",
    "Syntax",
    "TagContains",
    "TagDeclaration",
    "TagName",
    "TopList",
    "Transform",
    "TransformKind",
    "Transforms",
    "Union",
    "XRay",
    "bare_words",
    "by_field",
    "chain_value",
    "node_classes",
    "origin_field",
]
