"""Showing results: why a position matched (:mod:`~cqllegacy.present.witness`), board
diagrams (:mod:`~cqllegacy.present.diagrams`), the HTML report
(:mod:`~cqllegacy.present.html_report`) and the text and HTML of ``cqllegacy explain``
(:mod:`~cqllegacy.present.explain`).

Everything here reads finished results (a matching game's text and the positions the
runner found) and the core query; nothing here decides whether a game matches.
"""
