"""The grammar's rules as flat arrays for the runtime's Earley parser.

The runtime parser (``indexc_runtime.grammar.earley``) reads rules by number, so everything it
needs is laid out here once, with no Python object per rule in the artifact:

- symbols are numbered terminals first (``0 .. T-1``, the lexer's terminal ids), then
  nonterminals (``T .. T+N-1``); nonterminal 0 is an added start symbol ``S' -> start`` and
  rule 0 is that rule, so "the text is a sentence" is "an item ``(rule 0, dot 1)`` is in the
  current Earley set";
- ``rule_lhs`` (nonterminal id), ``rule_rhs_offsets`` + ``rule_rhs`` (CSR of symbol ids);
- ``symbol_nullable``: symbols that derive the empty string (a terminal whose regex matches
  the empty string counts);
- the *prediction closure* of each nonterminal ``X``: every item ``(rule, dot)`` that predicting
  ``X`` puts into a set, following predictions and stepping over nullable symbols
  (Aycock-Horspool), as a CSR (``prediction_offsets``, ``prediction_rule``,
  ``prediction_dot``).  With it the runtime closes an Earley set with one table read per
  nonterminal a kernel item waits on, instead of a prediction loop.

Before flattening, the grammar is trimmed: rules using a symbol that derives no string at all
(unproductive) are dropped, then rules not reachable from the start.  Both are reported as
warnings (``EarleyTables.warnings``); a start symbol that is unproductive is a ``GrammarError``
(the language is empty).  Trimming is not cosmetic: the runtime treats every live Earley item
as completable, which is what makes "a live lexer thread" mean "a token may follow".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from indexc.grammar.checks import productive_symbols, reachable_symbols
from indexc_runtime.grammar.first_follow import nullable_symbols
from indexc.grammar.ir import Grammar, GrammarError, Rule



@dataclass(frozen=True)
class EarleyTables:
    terminal_names: tuple[str, ...]
    nonterminal_names: tuple[str, ...]  # [0] is the added start symbol
    rule_lhs: np.ndarray  # int32 (n_rules,): nonterminal id (not symbol id)
    rule_rhs_offsets: np.ndarray  # int32 (n_rules + 1,)
    rule_rhs: np.ndarray  # int32: symbol ids
    symbol_nullable: np.ndarray  # uint8 (T + N,)
    prediction_offsets: np.ndarray  # int32 (N + 1,)
    prediction_rule: np.ndarray  # int32
    prediction_dot: np.ndarray  # int32
    ignore: np.ndarray  # int32 terminal ids that may appear between any two terminals
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def n_rules(self) -> int:
        return int(self.rule_lhs.size)


def trimmed(grammar: Grammar) -> tuple[list[Rule], list[str], list[str]]:
    """(rules kept, terminal names used in them or ignored, warnings): unproductive and unreachable rules out."""
    terminals = grammar.terminals
    productive = productive_symbols(grammar)
    if grammar.start not in productive:
        raise GrammarError(f"the start symbol {grammar.start!r} derives no string: the language is empty",
                           source=grammar.source)
    warnings = [f"rule {r.lhs} -> {' '.join(r.rhs) or '(empty)'} can never complete (unproductive symbol)"
                for r in grammar.rules if not all(s in productive for s in r.rhs) and r.lhs in productive]
    warnings += [f"nonterminal {name!r} derives no string" for name in sorted(grammar.nonterminals - productive)]
    rules = [r for r in grammar.rules if r.lhs in productive and all(s in productive for s in r.rhs)]
    reachable = reachable_symbols(grammar.start, rules)
    unreachable = sorted({r.lhs for r in rules} - reachable)
    warnings += [f"nonterminal {name!r} is unreachable from {grammar.start!r}" for name in unreachable]
    rules = [r for r in rules if r.lhs in reachable]
    used = {s for r in rules for s in r.rhs if s in terminals}
    names = [name for name in terminals if name in used or name in grammar.ignore]
    return rules, names, warnings


def build_tables(grammar: Grammar, rules: list[Rule], terminal_names: list[str],
                 terminal_nullable: np.ndarray, warnings: list[str]) -> EarleyTables:
    """Number the symbols, flatten the rules, compute nullable symbols and prediction closures."""
    T = len(terminal_names)
    nonterminals = ["<start>"] + sorted({r.lhs for r in rules})
    symbol_id = {name: i for i, name in enumerate(terminal_names)}
    symbol_id.update({name: T + i for i, name in enumerate(nonterminals)})
    flat = [(0, (symbol_id[grammar.start],))] + [(symbol_id[r.lhs] - T, tuple(symbol_id[s] for s in r.rhs)) for r in rules]
    lhs = np.array([a for a, _ in flat], dtype=np.int32)
    lengths = np.array([len(rhs) for _, rhs in flat], dtype=np.int64)
    offsets = np.zeros(len(flat) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    rhs = np.array([s for _, r in flat for s in r], dtype=np.int32)
    nullable = np.array(nullable_symbols([(T + a, r) for a, r in flat], terminal_nullable, T + len(nonterminals)),
                        dtype=bool)
    pred_offsets, pred_rule, pred_dot = _prediction_closures(flat, T, len(nonterminals), nullable)
    ignore = np.array([symbol_id[name] for name in grammar.ignore if name in symbol_id], dtype=np.int32)
    return EarleyTables(tuple(terminal_names), tuple(nonterminals), lhs, offsets, rhs, nullable.astype(np.uint8),
                        pred_offsets, pred_rule, pred_dot, ignore, tuple(warnings))


def _prediction_closures(flat, T: int, N: int, nullable: np.ndarray):
    """For each nonterminal, the sorted (rule, dot) items predicting it adds to a set."""
    rules_of: list[list[int]] = [[] for _ in range(N)]
    for r, (a, _) in enumerate(flat):
        rules_of[a].append(r)
    closures = []
    for x in range(N):
        items: set[tuple[int, int]] = set()
        stack = [(r, 0) for r in rules_of[x]]
        while stack:
            item = stack.pop()
            if item in items:
                continue
            items.add(item)
            r, d = item
            rhs = flat[r][1]
            if d < len(rhs):
                symbol = rhs[d]
                if symbol >= T:
                    stack.extend((r2, 0) for r2 in rules_of[symbol - T])
                if nullable[symbol]:
                    stack.append((r, d + 1))
        closures.append(sorted(items))
    offsets = np.zeros(N + 1, dtype=np.int32)
    np.cumsum([len(c) for c in closures], out=offsets[1:])
    rule = np.array([r for c in closures for r, _ in c], dtype=np.int32)
    dot = np.array([d for c in closures for _, d in c], dtype=np.int32)
    return offsets, rule, dot
