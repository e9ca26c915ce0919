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

This module gathers the tree, every public name of its parts (a new node class needs no
line here); the parts live in modules of their own:
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

# Star imports: mypy and ``ct.Name`` see each part's own public names, so a node class added
# to a family module is ``ct.Cls`` without a line here.
from cqllegacy.core.declarations import *  # noqa: F403
from cqllegacy.core.legacy_nodes import *  # noqa: F403
from cqllegacy.core.line_nodes import *  # noqa: F403
from cqllegacy.core.logic_nodes import *  # noqa: F403
from cqllegacy.core.number_nodes import *  # noqa: F403
from cqllegacy.core.position_nodes import *  # noqa: F403
from cqllegacy.core.query import *  # noqa: F403
from cqllegacy.core.set_nodes import *  # noqa: F403
