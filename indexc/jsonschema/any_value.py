""""Any JSON value": the ``true`` schema, ``{}``, and the values of unlisted properties.

It is recursive (an array of anything holds anything), so it is one named definition,
``ANY``, referring to itself.  The grammar path keeps the recursion; the DFA path inlines it
``any_depth`` levels deep and then uses ``ANY_LEAF`` (scalars and *empty* containers), which
is the documented bound of the DFA path (``options``).
"""

from __future__ import annotations

from indexc.jsonschema.expr import Expr, Lex, Ref, Ws, alt, seq
from indexc.jsonschema.json_text import ANY_CHAR_RUN_UNIT
from indexc.jsonschema.numbers import ANY_NUMBER
from indexc.jsonschema.punctuation import (CLOSE_ARRAY, CLOSE_OBJECT, OPEN_ARRAY, OPEN_OBJECT, bracketed,
                                           repeated_list)

ANY = "any_value"
ANY_STRING = Lex(f'"(?:{ANY_CHAR_RUN_UNIT})*"')
_SCALARS = (Lex("null"), Lex("true|false"), Lex(ANY_NUMBER), ANY_STRING)


def any_value(item_sep: Expr, key_sep: Expr) -> Expr:
    """The definition of ``ANY`` (refers to ``Ref(ANY)``)."""
    member = seq(ANY_STRING, key_sep, Ref(ANY))
    members, _ = repeated_list(member, item_sep, 0, None)
    elements, _ = repeated_list(Ref(ANY), item_sep, 0, None)
    return alt(*_SCALARS, bracketed(OPEN_OBJECT, members, True, CLOSE_OBJECT),
               bracketed(OPEN_ARRAY, elements, True, CLOSE_ARRAY))


def any_leaf() -> Expr:
    """What ``ANY`` becomes once the DFA path's depth bound is reached."""
    return alt(*_SCALARS, seq(OPEN_OBJECT, Ws(), CLOSE_OBJECT), seq(OPEN_ARRAY, Ws(), CLOSE_ARRAY))
