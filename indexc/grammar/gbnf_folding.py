"""GBNF's character-level meaning mapped onto lexemes: regular parts folded into one terminal.

GBNF has no lexer: a grammar is a CFG over characters, and llama.cpp accepts exactly its
language (every way of splitting the text is tried).  The IR has terminals, so some mapping is
needed, and any mapping that keeps the language is correct *as long as the Earley path uses
the all-splits rule for GBNF* (a terminal may end at any position where its DFA accepts, not
only at the longest match) — there is no ``%ignore`` in GBNF, so concatenating or uniting
terminals never changes the language.  The mapping chosen makes lexemes as large as possible,
because the precompiled in-lexeme masks are fast and the live Earley steps are slow:

1. A rule is *regular* when no rule it reaches (itself included) lies on a cycle of the rule
   graph; its language is then regular, and it is written as one regex (the rules it uses
   inlined).  ``json.gbnf``'s ``string``, ``number`` and ``ws`` are regular; ``value``,
   ``object`` and ``array`` are not.  If a whole grammar is regular (``chess``, ``english``,
   ``list``, ``vllm-sql``), ``root`` becomes a single terminal: a plain DFA.
2. Inside the remaining rules, every maximal regular piece becomes one terminal: a run of
   adjacent regular items in a sequence (``"{" ws`` and ``string ":" ws`` in ``object``), and
   the regular options of an alternation together (``string | number | ... ws`` in ``value``).
3. Only the start rule and the non-regular rules remain as IR rules; regular rules are used
   only through the terminals that inline them.

No regex longer than ``MAX_FOLDED_REGEX`` characters is built (inlining a DAG of rules can
grow exponentially: ``r0 ::= r1 r1``, ``r1 ::= r2 r2``, ...): such a rule stays a rule and its
users treat it as non-regular.  Each folded lexeme is compiled once, and one whose byte DFA
would exceed ``MAX_FOLDED_STATES`` (``(a|b)* a (a|b){20}`` as one regex is exponential; as a
CFG it is small) is not built either.  A run or union refused for either reason is folded item
by item, and a regular rule that cannot become a lexeme stays a rule.
The empty string is never folded into a terminal (an empty option stays an empty option).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from indexc.automaton import compile_regex
from indexc.errors import LimitError, RegexError

from indexc.grammar.expression import EMPTY, Alt, Definition, Expr, Lexeme, Ref, Repeat, Seq, display, references
from indexc.grammar.expression import alternation, first_offset, sequence
from indexc.grammar.regex_text import expression_regex

MAX_FOLDED_REGEX = 20_000
# Byte-DFA states a folded lexeme may have (the bundled samples' largest has 81).
MAX_FOLDED_STATES = 5_000


@dataclass
class FoldedGrammar:
    bodies: dict[str, Expr]     # the rules that remain: the start and what it still refers to
    compiled: set[str]          # folded regexes already compiled (they need no second check)


def fold_regular_parts(definitions: Mapping[str, Definition], start: str) -> FoldedGrammar:
    """The rules that remain (start, and the rules the folded bodies still name)."""
    folder = _Folder(definitions)
    bodies: dict[str, Expr] = {}
    pending = [start]
    while pending:
        name = pending.pop()
        if name not in bodies:
            bodies[name] = folder.fold(definitions[name].body)
            pending.extend(ref.name for ref in references(bodies[name]))
    return FoldedGrammar(bodies, folder.compiled)


class _Folder:
    def __init__(self, definitions: Mapping[str, Definition]):
        self.definitions = definitions
        self.on_cycle = _names_on_cycles(definitions)
        self.rule_regex: dict[str, str | None] = {}  # None: not regular
        self.compiled: set[str] = set()
        self.refused: set[str] = set()

    def is_regular_rule(self, name: str) -> bool:
        return self.regex_of_rule(name) is not None

    def regex_of_rule(self, name: str) -> str | None:
        if name not in self.rule_regex:
            self.rule_regex[name] = self._compute_rule_regex(name)
        return self.rule_regex[name]

    def _compute_rule_regex(self, name: str) -> str | None:
        if name in self.on_cycle:
            return None
        body = self.definitions[name].body
        if not all(self.is_regular_rule(ref.name) for ref in references(body)):
            return None
        regex = expression_regex(body, lambda ref: self.rule_regex[ref.name])
        return regex if len(regex) <= MAX_FOLDED_REGEX else None

    def is_regular(self, expr: Expr) -> bool:
        return all(self.is_regular_rule(ref.name) for ref in references(expr))

    def lexeme(self, expr: Expr) -> Expr | None:
        """``expr`` (regular) as one lexeme, the empty sequence staying empty; None when the
        regex would be longer than ``MAX_FOLDED_REGEX``."""
        if expr == EMPTY or isinstance(expr, Lexeme):
            return expr
        regex = expression_regex(expr, lambda ref: self.rule_regex[ref.name])
        if regex == "":
            return EMPTY
        if len(regex) > MAX_FOLDED_REGEX or not self._compiles(regex):
            return None
        written = display(expr)
        return Lexeme(regex, f"({written})" if isinstance(expr, Alt) else written, False, first_offset(expr))

    def _compiles(self, regex: str) -> bool:
        """Does ``regex`` compile within ``MAX_FOLDED_STATES``?  (memoised)"""
        if regex in self.compiled:
            return True
        if regex in self.refused:
            return False
        try:
            compile_regex(regex, max_states=MAX_FOLDED_STATES)
        except (RegexError, LimitError):
            self.refused.add(regex)
            return False
        self.compiled.add(regex)
        return True

    def fold(self, expr: Expr) -> Expr:
        """``expr`` with each maximal regular part as one lexeme."""
        if self.is_regular(expr) and not (isinstance(expr, Alt) and EMPTY in expr.options):
            whole = self.lexeme(expr)
            if whole is not None:
                return whole
        if isinstance(expr, Seq):
            return self._fold_sequence(expr)
        if isinstance(expr, Alt):
            return self._fold_alternation(expr)
        if isinstance(expr, Repeat):
            return Repeat(self.fold(expr.item), expr.min, expr.max)
        return expr  # a Ref to a non-regular rule, or to a regular one too large to fold

    def _fold_sequence(self, expr: Seq) -> Expr:
        items: list[Expr] = []
        run: list[Expr] = []
        for item in expr.items:
            if self.is_regular(item):
                run.append(item)
                continue
            items.extend(self._fold_run(run))
            run = []
            items.append(self.fold(item))
        items.extend(self._fold_run(run))
        return sequence(items)

    def _fold_run(self, run: list[Expr]) -> list[Expr]:
        """Adjacent regular items as one lexeme, or one by one if that regex is too long."""
        if not run:
            return []
        whole = self.lexeme(sequence(run))
        return [whole] if whole is not None else [self.fold(item) for item in run]

    def _fold_alternation(self, expr: Alt) -> Expr:
        regular = [option for option in expr.options if self.is_regular(option) and option != EMPTY]
        others = [self.fold(option) for option in expr.options if option not in regular]
        merged = self.lexeme(alternation(regular)) if regular else None
        folded_regular = [merged] if merged is not None else [self.fold(option) for option in regular]
        return alternation(folded_regular + others)


def _names_on_cycles(definitions: Mapping[str, Definition]) -> set[str]:
    """Rules that can reach themselves through references (Tarjan's SCCs, iteratively)."""
    graph = {name: [ref.name for ref in references(d.body) if ref.name in definitions] for name, d in definitions.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cyclic: set[str] = set()
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(graph[successor])))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    cyclic.update(component)
    return cyclic
