"""Expression trees -> BNF rules and terminals of the IR (the desugaring both front ends share).

Each rule body becomes one IR rule per top-level alternative; inside a body:

- a ``Ref`` stays a symbol; a ``Lexeme`` becomes a terminal (one terminal per distinct regex,
  named after how the grammar wrote it: ``"{"``, ``/[0-9]+/``, ``[a-z]``);
- a nested alternation or group becomes a helper nonterminal ``owner.altN``;
- repetitions become helpers, left-recursive where unbounded (Earley handles left recursion
  in linear space; right recursion would keep one item per repetition alive):

      X*      H -> ε | H X
      X+      H -> X | H X
      X?      H -> ε | X
      X{n,m}  X repeated n times (by doubling helpers P2 -> X X, P4 -> P2 P2: O(log n) rules),
              then a chain T_k -> ε | X T_(k-1) for the m-n optional copies.

Helper names contain a ``.``, which neither Lark nor GBNF allows in a name, so they never clash
with the user's symbols.  Equal sub-expressions share one helper, named after the first rule
that wrote it (``rfc.lark`` writes the same alternation of 12 elements in dozens of rules).
"""

from __future__ import annotations

from indexc.grammar.expression import Alt, Expr, Lexeme, Ref, Repeat, Seq, alternatives
from indexc.grammar.ir import Rule, Terminal

# Bounded repetitions are unrolled; beyond this many copies the grammar is refused (the front
# ends check it where they know the position).
MAX_REPEAT_COUNT = 10_000
# Terminal names are how the grammar wrote the lexeme, cut to this length (+ "#n" if needed).
MAX_NAME = 48


class BnfBuilder:
    """Accumulates the IR rules and terminals of one grammar."""

    def __init__(self, reserved_names: frozenset[str] = frozenset()):
        self.rules: list[Rule] = []
        self.terminals: dict[str, Terminal] = {}
        self._reserved = set(reserved_names)
        self._terminal_of_regex: dict[str, str] = {}
        self._helper_of_expr: dict[Expr, str] = {}
        self._helper_count: dict[str, int] = {}

    # --- terminals -------------------------------------------------------------------------

    def add_named_terminal(self, name: str, regex: str, is_literal: bool = False) -> str:
        """A terminal the grammar named itself (a Lark ``NAME: ...`` definition).  Inline
        lexemes with the same regex use it rather than a second, identical terminal."""
        self.terminals[name] = Terminal(name, regex, is_literal)
        self._reserved.add(name)
        self._terminal_of_regex.setdefault(regex, name)
        return name

    def terminal(self, lexeme: Lexeme) -> str:
        """The terminal of an inline lexeme: shared by every lexeme with the same regex."""
        known = self._terminal_of_regex.get(lexeme.regex)
        if known is not None:
            return known
        name = self._fresh(_short(lexeme.display))
        self.terminals[name] = Terminal(name, lexeme.regex, lexeme.is_literal)
        self._terminal_of_regex[lexeme.regex] = name
        return name

    # --- rules -----------------------------------------------------------------------------

    def define(self, lhs: str, body: Expr) -> None:
        """Rules ``lhs -> option`` for each top-level option of ``body``."""
        self._reserved.add(lhs)
        for option in alternatives(body):
            self.rules.append(Rule(lhs, tuple(self.symbols(option, lhs))))

    def symbols(self, expr: Expr, owner: str) -> list[str]:
        """The symbol string ``expr`` stands for inside a rule of ``owner``."""
        if isinstance(expr, Ref):
            return [expr.name]
        if isinstance(expr, Lexeme):
            return [self.terminal(expr)]
        if isinstance(expr, Seq):
            return [symbol for item in expr.items for symbol in self.symbols(item, owner)]
        return [self._helper(expr, owner)]

    def _helper(self, expr: Alt | Repeat, owner: str) -> str:
        known = self._helper_of_expr.get(expr)
        if known is not None:
            return known
        kind = "alt" if isinstance(expr, Alt) else "opt" if (expr.min, expr.max) == (0, 1) else "rep"
        name = self._helper_name(owner, kind)
        self._helper_of_expr[expr] = name
        if isinstance(expr, Alt):
            self.define(name, expr)
        else:
            self._define_repeat(name, expr)
        return name

    def _define_repeat(self, name: str, repeat: Repeat) -> None:
        item = self._single_symbol(repeat.item, name)
        low, high = repeat.min, repeat.max
        if high is None:
            self.rules.append(Rule(name, tuple(self._exactly(item, low, name)) if low else ()))
            self.rules.append(Rule(name, (name, item)))
            return
        if low == 0:
            self._optional_chain(item, high, name, outermost=name)
            return
        prefix = tuple(self._exactly(item, low, name))
        if high == low:
            self.rules.append(Rule(name, prefix))
            return
        self.rules.append(Rule(name, prefix + (self._optional_chain(item, high - low, name),)))

    def _single_symbol(self, expr: Expr, owner: str) -> str:
        symbols = self.symbols(expr, owner)
        if len(symbols) == 1:
            return symbols[0]
        name = self._helper_name(owner, "group")
        self.rules.append(Rule(name, tuple(symbols)))
        return name

    def _exactly(self, item: str, count: int, owner: str) -> list[str]:
        """Symbols deriving exactly ``count`` copies of ``item``: one power of two per set bit."""
        if count <= 4:
            return [item] * count
        symbols: list[str] = []
        power, power_symbol = 1, item
        while count:
            if count & 1:
                symbols.append(power_symbol)
            count >>= 1
            if count:
                doubled = self._helper_name(owner, f"x{power * 2}_")
                self.rules.append(Rule(doubled, (power_symbol, power_symbol)))
                power, power_symbol = power * 2, doubled
        return symbols

    def _optional_chain(self, item: str, count: int, owner: str, outermost: str | None = None) -> str:
        """A symbol (``outermost`` if given) deriving 0..count copies of ``item``."""
        previous: str | None = None
        for index in range(count):
            link = outermost if outermost and index == count - 1 else self._helper_name(owner, "upto")
            self.rules.append(Rule(link, ()))
            self.rules.append(Rule(link, (item,) if previous is None else (item, previous)))
            previous = link
        assert previous is not None
        return previous

    # --- names -----------------------------------------------------------------------------

    def _helper_name(self, owner: str, kind: str) -> str:
        base = owner.split(".")[0]
        count = self._helper_count.get(base, 0) + 1
        self._helper_count[base] = count
        return self._fresh(f"{base}.{kind}{count}")

    def _fresh(self, name: str) -> str:
        candidate, suffix = name, 1
        while candidate in self._reserved or candidate in self.terminals:
            suffix += 1
            candidate = f"{name}#{suffix}"
        self._reserved.add(candidate)
        return candidate


def _short(display: str) -> str:
    """A terminal name from how the grammar wrote it, cut to ``MAX_NAME`` characters."""
    return display if len(display) <= MAX_NAME else display[: MAX_NAME - 3] + "..."
