"""JsonSchemaOptions: how a schema is compiled (whitespace, separators, leniency, routing).

Whitespace policy, beside llguidance's ``x-guidance`` keys (same names, same meaning):

- flexible (default, ``whitespace_flexible: true``): any JSON whitespace ``[ \\t\\n\\r]*``
  between two tokens, none before the first or after the last (so a model cannot pad the
  end forever, but inside the value it can: see the next point);
- a bounded pattern (``--whitespace-pattern``, ``whitespace_pattern``): the regex is matched
  at most once at each place where whitespace may go, so ``[ \\n]{0,4}`` caps every run;
- compact (``--compact``, ``whitespace_flexible: false``): no whitespace at all;
- ``item_separator`` / ``key_separator`` (default ``,`` and ``:``): regexes for the separators,
  with the whitespace policy still applying on both sides (use ``--compact`` with them to have
  the separator regex alone decide, as llguidance's example does).

Precedence: an option given explicitly (command line, API) wins over the schema's top-level
``x-guidance`` object, which wins over the defaults.  ``x-guidance.lenient`` and
``coerce_one_of`` are honoured the same way.

Routing (``mode``): ``auto`` compiles a regular schema to one DFA and sends a recursive one
(a ``$ref`` cycle), or one whose minimal DFA exceeds ``dfa_max_states`` (60,000), to the
grammar path, as well as one whose construction passes ``--max-states``' limits (400,000
states before minimisation, 400,000 NFA states; ``automaton.limits``); ``dfa`` and ``cfg``
force a path.  Until session 10 the auto limit bounded the construction itself (20,000
states, NFA 80,000), which refused schemas whose *unminimised* DFA is large: MaskBench's
pkg_schema went to the grammar path for a 5,997-state DFA.  The grammar path's cold masks are
its slow ones: of session 10's 90 grammar-path files (every 4th dev file), 42 then took the
DFA path (DFAs of 1,715-36,688 states) and the 90 files' masks over 200 us went 10,953 ->
5,000; four files lose a valid instance to the ``any_depth`` bound below (listed in
BENCHMARKS.md).  Session 15: the subset construction may reach 4x ``--max-states`` before
minimisation (six files that stopped at 100,000 subsets have minimal DFAs of 6,654-33,007
states), and the limit on the minimal DFA is 60,000 (was 40,000): the DFA compiles of o9852
(46,642 states) and sp_152 (55,843) now cost less than their DFA attempt plus the grammar path
(4.8 against 5.4 s, 7.5 against 8.8 s), o13024's (51,781) more (6.5 against 1.2 s).

On the DFA path "any JSON value" (``true``, ``{}``, an object's unlisted properties) is
nested at most ``any_depth`` levels deep (objects and arrays inside it beyond that depth must
be empty); the grammar path has no such bound.  The default, 3, lets an unlisted key hold
an array of objects of arrays (Kubernetes---kb_4's valid instances); "any JSON value" is one
embedded DFA per schema (``to_automaton.closed_automaton``), whose size roughly doubles per
level (a bracket stack): depth 2 -> 3 adds ~330 byte-DFA states and ~30% compile time on
MaskBench samples (0.4-0.6 s -> 0.5-1.1 s process time), depth 4 doubles it again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from indexc.jsonschema.errors import JsonSchemaError

MODES = ("auto", "dfa", "cfg")
FLEXIBLE_WHITESPACE = "[\\x20\\x0A\\x0D\\x09]+"
_X_GUIDANCE_KEYS = {
    "whitespace_flexible", "whitespace_pattern", "item_separator", "key_separator",
    "coerce_one_of", "lenient",
}


@dataclass(frozen=True)
class JsonSchemaOptions:
    whitespace_flexible: bool | None = None  # None: from x-guidance, else True
    whitespace_pattern: str | None = None
    item_separator: str | None = None  # None: from x-guidance, else ","
    key_separator: str | None = None  # None: from x-guidance, else ":"
    lenient: bool | None = None
    coerce_one_of: bool | None = None
    mode: str = "auto"
    any_depth: int = 3
    dfa_max_states: int = 60_000

    def __post_init__(self):
        if self.mode not in MODES:
            raise JsonSchemaError(f"unknown mode {self.mode!r} (expected one of {', '.join(MODES)})")
        if self.any_depth < 0:
            raise JsonSchemaError("any_depth must be >= 0")

    def resolved(self, x_guidance: object) -> JsonSchemaOptions:
        """Options with every unset field taken from the schema's ``x-guidance``, then the defaults."""
        given = _checked_x_guidance(x_guidance)
        values = {}
        for name in _X_GUIDANCE_KEYS:
            if getattr(self, name) is None and name in given:
                values[name] = given[name]
        merged = replace(self, **values)
        lenient = bool(merged.lenient)
        return replace(
            merged,
            whitespace_flexible=True if merged.whitespace_flexible is None else merged.whitespace_flexible,
            item_separator="," if merged.item_separator is None else merged.item_separator,
            key_separator=":" if merged.key_separator is None else merged.key_separator,
            lenient=lenient,
            coerce_one_of=bool(merged.coerce_one_of) or lenient,
        )

    @property
    def whitespace_regex(self) -> str:
        """What may stand where JSON allows whitespace ('' for none); only on resolved options."""
        if self.whitespace_pattern is not None:
            return f"(?:{self.whitespace_pattern})?"
        return "[\\x20\\x0A\\x0D\\x09]*" if self.whitespace_flexible else ""

    @property
    def whitespace_terminal(self) -> str | None:
        """The non-empty whitespace lexeme of the grammar path (None: no whitespace)."""
        if self.whitespace_pattern is not None:
            return self.whitespace_pattern
        return FLEXIBLE_WHITESPACE if self.whitespace_flexible else None

    def as_dict(self) -> dict:
        return asdict(self)


def _checked_x_guidance(value: object) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise JsonSchemaError("x-guidance must be an object", pointer="#/x-guidance")
    checks = {
        "whitespace_flexible": bool, "whitespace_pattern": str, "item_separator": str,
        "key_separator": str, "coerce_one_of": bool, "lenient": bool,
    }
    for key, expected in checks.items():
        if key in value and not isinstance(value[key], expected):
            raise JsonSchemaError(f"x-guidance.{key} must be a {expected.__name__}", pointer=f"#/x-guidance/{key}")
    return {k: v for k, v in value.items() if k in checks}
