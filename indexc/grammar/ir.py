"""The grammar IR: the one data structure every grammar front end produces and the Earley path reads.

Lark, GBNF and recursive JSON Schemas are all lowered to this before anything is compiled, so
the lexeme tables and the Earley parser know one shape only:

- a *terminal* is a named regular language, given as a regex in indexc's dialect (the one
  ``indexc.automaton.compile_regex`` reads: whole-string match, UTF-8, Unicode classes).  A
  string literal is a terminal whose regex is the escaped literal.  Terminals are the lexemes.
- a *rule* is ``lhs -> rhs`` with ``rhs`` a tuple of symbol names (terminals or
  nonterminals); an empty ``rhs`` is epsilon.  Front ends desugar ``?``, ``*``, ``+``,
  ``{n,m}`` and groups into plain rules, so the parser sees BNF only.
- ``ignore`` names terminals that may appear between any two terminals (Lark's ``%ignore``).
- ``lexing`` says where a lexeme may end: ``"all_splits"`` (at any byte where its regex
  accepts: GBNF's meaning, and a JSON Schema's) or ``"longest_match"`` (Lark's: a terminal
  whose end one byte of lookahead decides ends only where the next byte cannot extend it;
  ``indexc.grammar.longest_match``).

Names are unique across terminals and nonterminals.  ``validate()`` checks the references;
the front ends call it and raise ``GrammarError`` with the line and column they know.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexc.errors import IndexcError


class GrammarError(IndexcError):
    """A grammar is malformed, refers to an undefined symbol, or has an empty language.

    ``line`` and ``column`` (1-based, optional) locate the offending construct in the grammar
    text; when given they print as ``source:line:column: message``.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        position: int | None = None,
        line: int | None = None,
        column: int | None = None,
    ):
        super().__init__(message, source=source, position=position)
        self.line = line
        self.column = column

    def __str__(self) -> str:
        if self.line is None:
            return super().__str__()
        where = f"{self.source}:" if self.source is not None else ""
        return f"{where}{self.line}:{self.column}: {self.message}"


@dataclass(frozen=True)
class Terminal:
    name: str
    regex: str            # indexc regex dialect, whole-string match
    is_literal: bool = False  # True when the regex is an escaped string literal (for display)
    also: tuple[str, ...] = ()  # regexes the lexeme must match as well (an intersection; JSON Schema strings)
    excluding: tuple[str, ...] = ()  # regexes the lexeme must not match (JSON Schema additional keys)


@dataclass(frozen=True)
class Rule:
    lhs: str
    rhs: tuple[str, ...]  # symbol names; () is epsilon


@dataclass(frozen=True)
class Grammar:
    start: str
    rules: tuple[Rule, ...]
    terminals: dict[str, Terminal] = field(default_factory=dict)
    ignore: tuple[str, ...] = ()
    source: str = "<grammar>"
    # Optional, added by the front ends: "line:column: message" notes (unreachable or
    # unproductive rules) that do not stop a compile.
    warnings: tuple[str, ...] = ()
    lexing: str = "all_splits"  # or "longest_match" (Lark files): ``indexc.grammar.longest_match``

    @property
    def nonterminals(self) -> frozenset[str]:
        return frozenset(rule.lhs for rule in self.rules)

    def validate(self) -> None:
        """Every rhs symbol and ignored name is defined; names do not clash; start has rules."""
        nonterminals = self.nonterminals
        clash = nonterminals & self.terminals.keys()
        if clash:
            raise GrammarError(f"names used both as rule and terminal: {sorted(clash)}", source=self.source)
        if self.start not in nonterminals:
            raise GrammarError(f"start symbol {self.start!r} has no rules", source=self.source)
        for rule in self.rules:
            for symbol in rule.rhs:
                if symbol not in nonterminals and symbol not in self.terminals:
                    raise GrammarError(f"rule {rule.lhs!r} refers to undefined symbol {symbol!r}", source=self.source)
        for name in self.ignore:
            if name not in self.terminals:
                raise GrammarError(f"%ignore names undefined terminal {name!r}", source=self.source)
