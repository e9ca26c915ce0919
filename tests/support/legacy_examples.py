"""Example scripts and lists of the legacy language's documentation (docs/semantics.md, Part 1-2).

They are facts about the language: each must parse.  Lists with placeholders (``…``,
``X``) are left out.  ``POSITION_LISTS`` pairs a position list with the match-list
declarations it needs (the reference shows some lists without their ``:forany``).
"""

from __future__ import annotations

#: Complete scripts (semantics: S-match-list, S-tags, S-combining-transforms, S-script).
#: The labels keep the section numbers of the notes that docs/semantics.md replaced: 1.4 is
#: S-script, 2.1 S-match-list, 4.11 S-tags, 5.5 S-combining-transforms.
SCRIPTS: dict[str, str] = {
    "match-list keywords (§2.1)": """\
(match
 :pgn heijden.pgn
 :output out.pgn
 :player costeff
 :result 1-0
 :gamenumber 10 1000
 :year 1934 2000
 (position))""",
    "rook in every corner (§4.11)": (
        "(match :forany rook [rR] (position $rook[a1]) (position $rook[h1]) "
        "(position $rook[h8]) (position $rook[a8]))"
    ),
    "persistent checker (§4.11)": (
        "(match :forany checker A (position :btm :attackcount $checker k 1 "
        ":matchcount 30 1000 :flipcolor))"
    ),
    "knight mates after one move (§4.11)": """\
(match :forany knight N (position :movefrom $knight :matchcount 1)
                        (position :mate :attackcount $knight k 1))""",
    "ideal mirror mate (§5.5)": """\
(match
 (position
  :flipcolor
  :and ((position :attackcount k . 8 :attackcount A k 1 :mate :btm)
        (position :not :attackcount k .e4 1 :attackcount A .e4 2 100 :shift))))""",
    "every game (§1.4)": "(match (position))",
}

#: Position lists (with the match-list declarations they need, if any).
POSITION_LISTS: list[tuple[str, str]] = [
    # S-designator-matching, S-logic
    ("(position R R Q Q)", ""),
    ("(position R Q)", ""),
    ("(position)", ""),
    ("(position :wtm :check :and ((position Ke2 kg2 :shift :flip) (position Ne2)))", ""),
    ("(position Ra3 :not)", ""),
    ("(position [aQBNPK.]a3)", ""),
    # S-piece-counts, S-rays
    ("(position :piececount R 2)                       ; exactly two white rooks", ""),
    ("(position Nd4 :piececount [Rr][a1-8] 1 3 :piececount [Qq][a-h8] 4)", ""),
    ("(position :piececount P[b2-7] 4 :shifthorizontal :flipcolor)   ; quadrupled pawns", ""),
    ("(position :attackcount A k 2)            ; black king attacked twice by white", ""),
    ("(position :attackcount A .h3 1)          ; exactly one white attacker of the empty h3", ""),
    ("(position :attackcount [RB][a-c8] ??1 5 9)", ""),
    ("(position :attackcount n [KRQ] 3 100)    ; ≥3 knight attacks on white K/major pieces", ""),
    ("(position :attackcount k . 8)            ; black king surrounded by 8 empty squares", ""),
    ("(position :attackcount N k 1 100 :flipcolor)   ; a knight checks the enemy king", ""),
    ("(position :power a 6)", ""),
    ("(position :power Aa-h1-4 10 25)", ""),
    ("(position :powerdifference U 4)              ; white exactly 4 points up", ""),
    ("(position :powerdifference [Rr] -5 10)", ""),
    ("(position :powerdifference [RrBbNn] -1000 -2) ; black up at least an exchange", ""),
    ("(position :ray (k Q))                 ; white queen attacks black king along a line", ""),
    ("(position :ray (Qa? n k[?4-8]))       ; Q on a-file pins n to k on ranks 4-8", ""),
    ("(position :ray (Qa? Qc? Qe? kg?))", ""),
    ("(position :ray (Q n k) 2 4)           ; 2–4 knights pinned this way", ""),
    ("(position :rayattack (A a k))", ""),
    ("(position :stalemate :rayattack (A a k) 2 8 :flipcolor)", ""),
    ("(position :rayattack (A $attacker k) 0)", ":forany attacker A"),
    ("(position :rayorthogonal ([qr] .d4 K))", ""),
    # S-moves
    ("(position :movenumber 35 :mate)", ""),
    # S-sequences
    ("(position Re8 :sequence ((position Qf3 .g2) (position .f3 Qg2)))", ""),
    ("(position Re8 :movefrom Qf3 :moveto .g2)", ""),
    (
        """\
(position :shift :flip :flipcolor
 :sequence ((position :movefrom Qa2) (position :check)
            (position :movefrom Qb2) (position :check)
            (position :movefrom Qb3) (position :check)
            (position :movefrom Qc3) (position :check)
            (position :movefrom Qc4)))""",
        "",
    ),
    ("(position :gappedsequence ((position :movefrom Ra3) (position :movefrom Rb4)))", ""),
    ("(position :gappedsequence ((position) (position Nd4)))  ; a knight reaches d4 later", ""),
    (
        "(position :initial :tagmatch pawn P?2 "
        ":gappedsequence ((position :movefrom $pawn :promote U)) :flipcolor)",
        ":forany pawn P",
    ),
    (
        "(position :initial :tagmatch pawn P?2 "
        ":gappedsequence((position :movefrom $pawn :promote U)) :flipcolor)",
        ":forany pawn P",
    ),
    # S-game-keywords
    ("(position :result 1-0 :whiteelo 0 2300 :blackelo 2600 3000 :flipcolor)", ""),
    # S-relation
    ("(position :relation (:changesidetomove))", ""),
    ("(position :relation (:missingpiececount A 1 100))        ; WCCT-7 idea (manual)", ""),
    ("(position :markall :relation (:missingpiececount A 1 10)) ; EG 151 example", ":result 1-0"),
    (
        """\
(position Ke6 be7 be4 nd5 :shift :flip :markall
 :relation (:pattern :shift :flip :originalsamecount 0 :samesidetomove :variations))""",
        "",
    ),
    # S-matchcount
    ("(position :moveto [Qq] :matchcount 4 100)", ""),
    ("(position :check :matchcount 1)", ""),
    ("(position :moveto [Aa]d4 :pretransformmatchcount 12 1000 :shift)", ""),
    # S-accumulators
    (
        """\
(position Pd2 :piececount [pP][d3-7] 0 :piececount p[c3-7,e3-7] 0
          :shift :accumulate white_passer_counter :sumrange white_passer_counter 3 8)""",
        "",
    ),
    (
        """\
(position :sumrange w 3 8 :sumrange b 2 8
          :and ((position Pd2 :piececount [pP][d3-7] 0 :piececount p[c3-7,e3-7] 0
                          :shift :accumulate w)
                (position pd7 :piececount [pP][d2-6] 0 :piececount P[c2-6,e2-6] 0
                          :shift :accumulate b)))""",
        "",
    ),
    # S-tags
    ("(position :tagmatch foo P)", ":forany foo P"),
    # S-unit-shifts, S-applying-transforms, S-combining-transforms
    ("(position Pa4 Nd4 :shifthorizontal)", ""),
    ("(position Pb4 Ne4 :shifthorizontal)", ""),
    ("(position Pc2 Rc1 :shiftvertical)", ""),
    ("(position Pc2 Rc1 :shift)", ""),
    ("(position Rc3 qg3 :shifthorizontal)", ""),
    ("(position Rc3 qg3 :shiftvertical)", ""),
    ("(position Rc3 qg3 :shift)", ""),
    ("(position Rc2 Bh8 :wtm)", ""),
    ("(position Rb2 B[g8,h8] :wtm)", ""),
    ("(position Rb2 Bg8 :wtm)", ""),
    ("(position Rb7 Bg1 :wtm)", ""),
    ("(position rb7 bg1 :btm)", ""),
    ("(position Nd4 kf3 :shift :flip)", ""),
    # S-game-matching (the Allumwandlung idea)
    ("(position :promote [Qq]) (position :promote [Rr])", ""),
    # S-moves: move examples, each in its own list
    ("(position :movefrom Ra3)", ""),
    ("(position :movefrom U?8)", ""),
    ("(position :movefrom [Kk]e?)", ""),
    ("(position :moveto .a3)", ""),
    ("(position :moveto R[b1-8])", ""),
    ("(position :moveto [Qq])", ""),
    ("(position :moveto .)", ""),
    ("(position :moveto U)", ""),
    ("(position :promote [RBN])", ""),
    ("(position :promote U)", ""),
    ("(position :promote [BN]a8)", ""),
    ("(position :promote Re8 :movefrom Pf7 :moveto q)", ""),
    ("(position :moveto .e6 :enpassant)", ""),
    ("(position :movefrom [Kk]e? :moveto .[c?,g?] :variations)", ""),
]


def as_script(position_lists: str, declarations: str = "") -> str:
    """Wrap position lists in a match list with the given match-list declarations."""
    return f"(match {declarations}\n{position_lists}\n)"


def all_example_scripts() -> dict[str, str]:
    """Every example as a complete script, keyed by a readable id."""
    out = dict(SCRIPTS)
    for number, (text, declarations) in enumerate(POSITION_LISTS):
        out[f"{number:02d} {text.splitlines()[0][:60]}"] = as_script(text, declarations)
    return out
