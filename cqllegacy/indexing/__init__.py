"""The position index: per PGN file, what a query can ask without replaying the games.

:mod:`~cqllegacy.indexing.records` reads games into columns,
:mod:`~cqllegacy.indexing.store` writes and opens an index file and asks it for
candidate games, :mod:`~cqllegacy.indexing.build` builds one (spread over processes),
:mod:`~cqllegacy.indexing.scan` runs a query with the indexes of its inputs.
"""
