"""The DFA path without regex text: a lowered schema -> ``indexc.automaton`` tree -> byte DFA.

``to_regex`` writes one regex and ``indexc.automaton.compile_regex`` reads it back, which for
schemas is mostly wasted work: the text is large (every ``$ref`` and every "any JSON value"
copied in full) and re-parsing it dominated the compile (a 25 kB regex: 0.7 s in the lexical
layer and 0.4 s in interegular, of 1.8 s).  Here each distinct leaf regex (a string body, a
number range, a key) is parsed *once* by the automaton's own front end (``normalize`` +
``parse_structure``), its character sets are renumbered into one shared table, and the
``expr`` tree is assembled directly into the automaton's ``regex_tree``; ``Ref`` inlining and
the "any JSON value" depth bound are the same as ``to_regex``'s.  The NFA is built by
``shared_nfa`` (suffixes shared, linear where the tree is quadratic); the stages after it
(atoms, subset construction, minimisation, UTF-8 expansion) are ``indexc.automaton``'s, in
the order of ``automaton.compile.compile_regex``.
The language is the same as ``schema_to_regex``'s regex (tests compare the two); an
``Intersection`` lexeme, which has no regex text, is built here as its product automaton
(``intersection``) and embedded whole (``shared_nfa.EmbeddedDFA``).

The closed "any JSON value" automaton is kept per process (``_CLOSED_AUTOMATA``): a worker
that compiles many schemas builds it once.  Cost of the whole DFA stage (``expr_to_dfa``,
process time; fresh processes, old and new code interleaved; "first" is a process's first
schema, the memo empty; "later" the median of its next 7 compiles), before -> after this
session's subset construction, pass-through aliases, round refinement and memo:

    MaskBench file                first          later
    Glaiveai2K send_email         163 -> 82 ms   144 -> 26 ms
    Github_easy o60843            184 -> 119 ms  174 -> 69 ms
    Github_medium o42810          1.28 -> 0.96 s 1.38 -> 0.90 s

Over the 96 files of every 19th MaskBench file that take the DFA path, compiled one after the
other in one process: median 115 -> 39 ms (81 ms with the memo cleared before each), 90th
percentile 310 -> 177 ms (222); the byte DFAs, and the routes of the other 24, are identical.

Session 8 (subset construction on bit sets and table blocks, repetitions laid out by
shifting, round refinement on (source, target) pairs, level-wise trims, the normalisation
memo): the 25 median DFA-path MaskBench schemas, one pass per process as the MaskBench worker,
process time, per-file min of 4 interleaved runs, median 38 -> 30 ms (sum 1,031 -> 848); the
large regular schemas the auto mode sends to the grammar path, compiled with a 200,000-state
limit (min of 3): Github_easy o9901 (78,281 byte states) 4.44 -> 2.33 s, Github_hard o12291
1.63 -> 1.08 s, o30745 1.12 -> 0.76 s, o14528 0.58 -> 0.43 s, o2045 0.49 -> 0.37 s, o30141
0.44 -> 0.31 s, o31337 0.55 -> 0.35 s; every DFA identical.  What is left on o9901: the subset
construction (~0.8 s: 94,939 subsets, most holding one place of three copies of a string
body), minimisation (~0.3-0.4 s: 1,032 rounds, a ``maxLength`` of 1,024 being distinguishing
depth), the UTF-8 expansion and the final trim (~0.25 s each, on a 20M-cell byte table).

Session 9: only the byte DFA's breadth-first numbering counts, so the stages before it skip
what that numbering makes moot: the subsets go to the minimiser as numbered, unsearched when
every character set has an atom (``_every_subset_live``), and the byte DFA is renumbered
without a second liveness search (``liveness.breadth_first_renumbering``); a schema's many
sets over few intervals are partitioned by the Python sweep (``atom_partition``), and its one
atom of all non-ASCII scalars is expanded without the block tree (``utf8_expansion``).  The 25
median DFA-path schemas, one pass per process, process time, per-file min of 4 interleaved
runs on a busy host: median 29.7 -> 22.6 ms (sum 834 -> 655); the byte DFAs of all 2,262
MaskBench files (routes and errors included) are identical.  What is left there (medians of
the same kind, before the expansion shortcut): subset construction ~8 ms, minimisation ~3.9,
NFA ~3.4, the tree (leaves' normalisation and parsing) ~2.4, the final renumbering ~2.3.
"""

from __future__ import annotations

from dataclasses import replace

from indexc.automaton.atom_partition import AtomPartition
from indexc.automaton.byte_dfa import ByteDFA
from indexc.automaton.code_point_sets import CodePointSet
from indexc.automaton.determinize import AtomDFA, determinize
from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.liveness import breadth_first_renumbering, live_part, trim
from indexc.automaton.normalize import NormalizedPattern, normalize
from indexc.automaton.parse import parse_structure
from indexc.automaton import regex_tree as rt
from indexc.automaton.round_refinement import minimize_in_rounds
from indexc.automaton.size_bound import check_minimal_size
from indexc.automaton.utf8_expansion import expand_utf8
from indexc.errors import LimitError, NFASizeError, RegexError
from indexc.jsonschema.expr import Alt, Expr, Intersection, Lex, NotRegular, Ref, Repeat, Seq, Ws, referenced_names
from indexc.jsonschema.complement import atom_sets
from indexc.jsonschema.intersection import CharDFA, intersect_regexes
from indexc.jsonschema.shared_nfa import EmbeddedDFA, SharedNFABuilder


# The tree counts every mention of a shared subtree; the suffix-sharing NFA does not, so the
# tree may exceed the NFA limit by this factor before it is refused (exponential ``$ref``
# DAGs still stop early; the NFA builder enforces the real limit).
TREE_BUDGET_FACTOR = 20

# The NFA states the definitions of ``expr_to_dfa(embed_definitions=True)`` may build in all,
# as a multiple of the schema's NFA limit (``EmbeddedDefinitions``).
EMBEDDED_NFA_FACTOR = 4

# The auto route does not build an inlined NFA whose tree, every mention of a shared subtree
# counted (``inlined_size``), is over this multiple of the NFA limit: it goes to the embedded
# definitions at once (``expr_to_dfa(inlined_tree_factor=...)``).  Suffix sharing shrinks a tree
# by up to ~26x on MaskBench's every-4th files (Snowplow sp_152: 10.3M tree states, an NFA under
# the 400,000 limit); the five files over 100x (kb_148 5.8e11, kb_711 4.0e9, o83390 3.1e9,
# kb_675 1.8e8, o65415 6.8e7) all went over the limit, and not building their NFAs takes
# 0.4-1.6 s off their routing (kb_148 8.9 -> 8.4 s, kb_711 7.7 -> 6.2, o83390 5.4 -> 4.2,
# kb_675 5.3 -> 4.2, o65415 7.3 -> 5.8; the same routes and DFAs).
INLINED_TREE_FACTOR = 100

# "Any JSON value" closed at its depth bound is the same DFA for every schema compiled with the
# same options (the definition does not depend on the schema), and building it is most of a
# small schema's DFA time (5,640 NFA states -> 2,632 subsets -> 461 states, 25-35 ms of
# Glaiveai2K send_email's 60); the last few are kept per process, keyed by everything the
# build reads (``TreeBuilder.closed_key``).
_CLOSED_AUTOMATA: dict[tuple, CharDFA] = {}
_CLOSED_AUTOMATA_KEPT = 8

# The lexical layer's reading of a leaf regex depends on its text alone, and schemas of one
# process share most leaves (string bodies, numbers, whitespace, keys): it is kept per process
# (the 25 median DFA-path MaskBench schemas normalise 395 leaves per pass, 0.23 of 2.9 s under
# a profiler, when each schema starts afresh).  Set indices are per schema, so parsing is not.
_NORMALIZED: dict[str, NormalizedPattern] = {}
_NORMALIZED_KEPT = 4096


class TreeBuilder:
    """Expr -> ``regex_tree`` over one shared table of character sets.

    Sizes are tracked as the tree is assembled (Thompson states, a shared subtree counted
    once), so a part too large by itself is refused with a ``LimitError`` early; inlined
    ``$ref`` DAGs that only blow up once expanded are stopped by the NFA builder, which
    checks its limit at every state it adds.  A definition or a shared subtree built once is reused (keyed by its name or
    identity and the "any JSON value" depth): a successful build proves no cycle is reachable
    from it, so the reuse cannot hide one.
    """

    def __init__(self, definitions: dict[str, Expr], whitespace: str, bounded: dict[str, Expr], depth_bound: int,
                 source: str = "<schema>", max_nfa_states: int = 4 * 100_000,
                 leaf_limits: AutomatonLimits = AutomatonLimits(),
                 embedded: EmbeddedDefinitions | None = None):
        self.definitions = definitions
        self.embedded = embedded  # not None: its definitions are built as their own DFAs (``embedded_definition``)
        self.leaf_limits = leaf_limits
        self.intersections: dict[Intersection, tuple[rt.Node, int]] = {}
        self.whitespace = whitespace
        self.bounded = bounded
        self.depth_bound = depth_bound
        self.source = source
        self.max_nfa_states = max_nfa_states
        self.sets: dict[CodePointSet, int] = {}
        self.leaves: dict[str, tuple[rt.Node, int]] = {}
        self.built: dict[tuple[str, int], tuple[rt.Node, int]] = {}
        self.shared: dict[tuple[int, int], tuple[rt.Node, int]] = {}  # by id(): shared suffixes
        self.keep_alive: list[Expr] = []
        self.seen: set[str] = set()

    @property
    def char_sets(self) -> tuple[CodePointSet, ...]:
        return tuple(self.sets)

    def build(self, expr: Expr) -> rt.Node:
        return self._build(expr, ())[0]

    def _build(self, expr: Expr, stack: tuple[str, ...]) -> tuple[rt.Node, int]:
        if isinstance(expr, (Seq, Alt, Repeat)):
            key = (id(expr), sum(stack.count(name) for name in self.bounded))
            found = self.shared.get(key)
            if found is not None:
                return found[0], 1  # counted once: the NFA builder enforces the real size
            found = self.shared[key] = self._build_node(expr, stack)
            self.keep_alive.append(expr)
            return found
        return self._build_node(expr, stack)

    def _build_node(self, expr: Expr, stack: tuple[str, ...]) -> tuple[rt.Node, int]:
        if isinstance(expr, Lex):
            return self.leaf(expr.regex)
        if isinstance(expr, Intersection):
            return self.intersection(expr)
        if isinstance(expr, Ws):
            return self.leaf(self.whitespace)
        if isinstance(expr, Seq):
            parts = [self._build(item, stack) for item in expr.items]
            return self._checked(rt.Concat(tuple(p for p, _ in parts)), sum(n for _, n in parts) + 1)
        if isinstance(expr, Alt):
            if not expr.options:
                raise RegexError("the schema matches no JSON value here", source=self.source)
            options = [self._build(option, stack) for option in expr.options]
            return self._checked(rt.Alternation(tuple(o for o, _ in options)), sum(n for _, n in options) + 2)
        if isinstance(expr, Repeat):
            body, size = self._build(expr.item, stack)
            node = rt.Repeat(body, expr.min, expr.max)
            return self._checked(node, size * rt.repeat_copies(node) + 2)
        return self.reference(expr, stack)

    def _checked(self, node: rt.Node, size: int) -> tuple[rt.Node, int]:
        if size > self.max_nfa_states:
            raise LimitError(f"the schema's automaton expands to over {self.max_nfa_states:,} NFA states "
                             "(its definitions inlined)", source=self.source)
        return node, size

    def reference(self, ref: Ref, stack: tuple[str, ...]) -> tuple[rt.Node, int]:
        self.seen.add(ref.name)
        depth = stack.count(ref.name)
        if depth and ref.name not in self.bounded:
            raise NotRegular(ref.name)
        bounded_depth = sum(stack.count(name) for name in self.bounded)
        key = (ref.name, bounded_depth)
        if key in self.built:
            return self.built[key][0], 1
        if ref.name in self.bounded and depth >= self.depth_bound:
            self.built[key] = self._build(self.bounded[ref.name], stack)
        elif ref.name in self.bounded and bounded_depth == 0:
            self.built[key] = self.closed_automaton(ref.name)
        elif self.embedded is not None and ref.name in self.embedded.names:
            self.built[key] = self.embedded_definition(ref.name, stack, bounded_depth)
        else:
            self.built[key] = self._build(self.definitions[ref.name], stack + (ref.name,))
        return self.built[key]

    def embedded_definition(self, name: str, stack: tuple[str, ...], bounded_depth: int) -> tuple[rt.Node, int]:
        """A definition as its own minimal DFA, embedded whole (``expr_to_dfa(embed_definitions=True)``).

        Built bottom-up: the definitions it names are embedded in it the same way, each built
        once per schema and bounded "any value" depth (``self.embedded``, shared by the inner
        builders).  Its minimal DFA is often far smaller than its Thompson states (Github_ultra
        o83390: 201 ``$ref``s, over 400,000 NFA states inlined, 32,965 minimal DFA states in all),
        and every use copies only that DFA's table (``EmbeddedDFA``)."""
        key = (name, bounded_depth)
        if key not in self.embedded.dfas:
            self.embedded.dfas[key] = self._budgeted_definition_dfa(name, stack)
        dfa = self.embedded.dfas[key]
        if dfa is None:  # an empty language: inlined, where the alternatives around it decide
            return self._build(self.definitions[name], stack + (name,))
        return self._embed(dfa)

    def _budgeted_definition_dfa(self, name: str, stack: tuple[str, ...]) -> CharDFA | None:
        """``definition_dfa`` with the definitions embedded, its NFA taken from the budget they
        share (``EmbeddedDefinitions``); None if it matches nothing (``tree_to_atom_dfa``'s
        ``RegexError``: any other error of its leaves was raised by the first, inlined attempt)."""
        shared = self.embedded
        limits = replace(self.leaf_limits, max_nfa_states=min(self.leaf_limits.max_nfa_states, shared.nfa_left))
        sizes: list[int] = []
        try:
            dfa = self.definition_dfa(name, stack, limits, shared, sizes)
        except RegexError:
            return None
        except NFASizeError:
            if limits.max_nfa_states < self.leaf_limits.max_nfa_states:  # the shared budget, not this one's limit
                raise LimitError(f"the definitions built as their own DFAs need over {shared.nfa_budget:,} NFA "
                                 "states in all", source=self.source) from None
            raise
        shared.nfa_left -= sizes[0]
        return dfa

    def definition_dfa(self, name: str, stack: tuple[str, ...], limits: AutomatonLimits,
                       embedded: EmbeddedDefinitions | None = None, nfa_sizes: list[int] | None = None) -> CharDFA:
        """One definition's minimal character-level DFA, built apart by an inner builder over
        the same definitions and options (``stack``: the references it is reached through)."""
        inner = TreeBuilder(self.definitions, self.whitespace, self.bounded, self.depth_bound, self.source,
                            self.max_nfa_states, self.leaf_limits, embedded)
        inner.seen = self.seen
        tree, _ = inner._build(self.definitions[name], stack + (name,))
        atom_dfa, partition = tree_to_atom_dfa(tree, inner.char_sets, limits, source=self.source, nfa_sizes=nfa_sizes)
        return CharDFA(atom_dfa.transitions, atom_dfa.accepting.astype(bool), tuple(atom_sets(partition)))

    def _embed(self, dfa: CharDFA) -> tuple[rt.Node, int]:
        """``dfa`` as a leaf of this tree (its columns numbered in this builder's set table) and its NFA size."""
        index = tuple(self.sets.setdefault(s, len(self.sets)) for s in dfa.columns)
        return EmbeddedDFA(dfa, index), dfa.n_states + 1

    def leaf(self, regex: str) -> tuple[rt.Node, int]:
        cached = self.leaves.get(regex)
        if cached is None:
            if regex == "":
                cached = (rt.EMPTY, 1)
            else:
                normalized = _normalized(regex, self.source)
                index = [self.sets.setdefault(s, len(self.sets)) for s in normalized.char_sets]
                node = parse_structure(normalized, source=self.source, set_indices=index)
                cached = (node, rt.nfa_size(node))
            self.leaves[regex] = cached
        return cached

    def closed_automaton(self, name: str) -> tuple[rt.Node, int]:
        """A bounded definition ("any JSON value", all ``depth_bound`` levels) as its own minimal
        DFA, embedded whole.  Inlined as a tree, each occurrence (every object's unlisted
        properties) got a fresh Thompson copy of every nested level: Kubernetes---kb_4 at
        depth 3 needed over 80,000 NFA states for a 2,177-state DFA.  The language only depends
        on the definition, so one DFA (a few hundred states) serves every occurrence, and every
        schema of the process with the same definition and options (``_CLOSED_AUTOMATA``)."""
        key = self.closed_key(name)
        dfa = _CLOSED_AUTOMATA.get(key)
        if dfa is None:
            dfa = self.definition_dfa(name, (), self.leaf_limits)
            if len(_CLOSED_AUTOMATA) >= _CLOSED_AUTOMATA_KEPT:
                del _CLOSED_AUTOMATA[next(iter(_CLOSED_AUTOMATA))]
            _CLOSED_AUTOMATA[key] = dfa
        return self._embed(dfa)

    def closed_key(self, name: str) -> tuple:
        """Everything ``definition_dfa(name, ...)`` reads for a closed automaton: the definitions reachable from
        ``name`` (expressions compare by value), the bounded replacements, the options."""
        reachable, stack = {}, [name]
        while stack:
            current = stack.pop()
            if current not in reachable:
                reachable[current] = self.definitions[current]
                stack.extend(referenced_names(reachable[current]))
        return (name, tuple(sorted(reachable.items())), tuple(sorted(self.bounded.items())), self.whitespace,
                self.depth_bound, self.max_nfa_states, self.leaf_limits)

    def intersection(self, lexeme: Intersection) -> tuple[rt.Node, int]:
        """The product automaton of the lexeme's regexes (``intersection``), built once per lexeme."""
        cached = self.intersections.get(lexeme)
        if cached is None:
            dfa = intersect_regexes(lexeme.regexes, self.leaf_limits, excluded=lexeme.excluded, source=self.source)
            cached = self.intersections[lexeme] = self._embed(dfa)
        return cached


class EmbeddedDefinitions:
    """Which definitions of one schema are built as their own minimal DFAs (``names``), those
    built (by name and bounded "any value" depth; None: it matches nothing), and the NFA states
    their builds may still use in all: ``EMBEDDED_NFA_FACTOR`` times the schema's NFA limit, so
    that a schema of many large definitions is refused with a clear error instead of
    determinising them all.  The five MaskBench files that take the DFA path this way built
    162,152-415,793 NFA states in all (o58218 .. kb_711), the two still refused 389,118 (o65415)
    and 456,742 (kb_148).  One object serves the schema's builder and all its inner ones."""

    def __init__(self, names: frozenset[str], nfa_budget: int):
        self.names = names
        self.dfas: dict[tuple[str, int], CharDFA | None] = {}
        self.nfa_budget = nfa_budget
        self.nfa_left = nfa_budget


def _shared_definitions(definitions: dict[str, Expr], root: Expr) -> frozenset[str]:
    """The definitions that more than one ``$ref`` names (in the root and every definition).
    Only those are worth a DFA of their own: a definition named once is built once inlined
    anyway, and determinising it apart costs a subset construction more (Github_ultra o65415
    with every definition apart, under cProfile: 29 of its 38 s in 37 of them)."""
    counts: dict[str, int] = {}
    for expr in (root, *definitions.values()):
        for name in referenced_names(expr):
            counts[name] = counts.get(name, 0) + 1
    return frozenset(name for name, count in counts.items() if count > 1)


def _normalized(regex: str, source: str) -> NormalizedPattern:
    """``normalize(regex)``, kept per process (``_NORMALIZED``); an error is raised afresh, with
    this ``source``."""
    found = _NORMALIZED.get(regex)
    if found is None:
        found = normalize(regex, source=source)
        if len(_NORMALIZED) >= _NORMALIZED_KEPT:
            del _NORMALIZED[next(iter(_NORMALIZED))]
        _NORMALIZED[regex] = found
    return found


def tree_to_atom_dfa(tree: rt.Node, char_sets: tuple[CodePointSet, ...], limits: AutomatonLimits, *,
                     source: str = "<schema>", breadth_first: bool = True,
                     nfa_sizes: list[int] | None = None) -> tuple[AtomDFA, AtomPartition]:
    """Stages 3-6 of ``automaton.compile``: tree -> minimal, live character-level DFA.

    ``breadth_first=False``: the minimal DFA is numbered as the minimiser numbers it, for
    ``tree_to_dfa``, which renumbers the byte DFA breadth-first (a minimal DFA is one up to its
    numbering, so the byte DFA is the same); and the subsets are searched for dead ones only
    when some character set is empty (``_every_subset_live``), then trimmed only if some are
    dead (``live_part``).  ``nfa_sizes``: the NFA's state count is appended to it."""
    nfa = SharedNFABuilder(limits.max_nfa_states, source).build(tree)
    if nfa_sizes is not None:
        nfa_sizes.append(len(nfa.epsilon))
    partition = AtomPartition.of_sets(char_sets)
    atom_dfa = determinize(nfa, partition, limits, source=source)
    if breadth_first:
        trimmed = trim(atom_dfa.transitions, atom_dfa.accepting)
    elif _every_subset_live(partition):
        trimmed = atom_dfa.transitions, atom_dfa.accepting.astype(bool)
    else:
        trimmed = live_part(atom_dfa.transitions, atom_dfa.accepting)
    if trimmed is None:
        raise RegexError("the schema matches no JSON text", source=source)
    check_minimal_size(*trimmed, limits, source)
    return AtomDFA(*minimize_in_rounds(*trimmed)), partition


def _every_subset_live(partition: AtomPartition) -> bool:
    """Whether every subset of the schema's NFA is live, known without a search: when every
    character set has an atom, every edge can be taken, and every state of the NFA lies on a
    path through its fragment to the accepting state (Thompson fragments, shared suffixes,
    embedded automata that are trimmed: closed "any value" ones and intersections), so every
    subset, holding one, can accept.  The liveness search cost ~1.5 ms of a median MaskBench
    schema's 1,800 subsets, which it found all live (the schema path refuses an empty class in
    a pattern; an empty set elsewhere still takes the search)."""
    return all(atoms.size for atoms in partition.set_atoms)


def tree_to_dfa(tree: rt.Node, char_sets: tuple[CodePointSet, ...], *, max_states: int,
                source: str = "<schema>") -> ByteDFA:
    """Stages 3-8 of ``automaton.compile``: tree -> minimal, live byte DFA (``LimitError`` over limits).

    The byte DFA's breadth-first numbering is its only one that counts (each stage before it
    may number its own way); its liveness follows from the character DFA's (``expand_utf8``),
    so it is not searched for again."""
    limits = AutomatonLimits.for_max_states(max_states)
    minimal, partition = tree_to_atom_dfa(tree, char_sets, limits, source=source, breadth_first=False)
    expanded = expand_utf8(minimal, partition, limits, source=source)
    transitions, accepting = breadth_first_renumbering(expanded.transitions, expanded.accepting)
    if len(transitions) > limits.max_states:
        raise LimitError(f"the byte-level DFA needs {len(transitions):,} states (limit {limits.max_states:,})",
                         source=source)
    return ByteDFA(transitions, accepting)


def expr_to_dfa(lowered, expr: Expr | None = None, *, max_states: int, source: str = "<schema>",
                embed_definitions: bool = False, inlined_tree_factor: int | None = None) -> tuple[ByteDFA, bool]:
    """(DFA of ``expr`` or the root, whether "any JSON value" was used); raises ``NotRegular``/``LimitError``.

    ``embed_definitions``: every definition that several ``$ref``s name is built as its own
    minimal DFA first and embedded whole at each use (``TreeBuilder.embedded_definition``),
    instead of inlined as a tree.  The language, hence the minimal DFA, is the same; the NFA
    holds one copy of each such definition's minimal DFA per use instead of its Thompson states.
    ``inlined_tree_factor`` (without ``embed_definitions``): an ``NFASizeError`` before the NFA
    is built if the tree's ``inlined_size`` is over this multiple of the NFA limit
    (``INLINED_TREE_FACTOR``, the auto route's)."""
    limits = AutomatonLimits.for_max_states(max_states)
    root = lowered.root if expr is None else expr
    embedded = (EmbeddedDefinitions(_shared_definitions(lowered.definitions, root),
                                    EMBEDDED_NFA_FACTOR * limits.max_nfa_states) if embed_definitions else None)
    builder = TreeBuilder(lowered.definitions, lowered.options.whitespace_regex, lowered.bounded,
                          lowered.options.any_depth, source, TREE_BUDGET_FACTOR * limits.max_nfa_states, limits,
                          embedded)
    tree = builder.build(root)
    if inlined_tree_factor is not None and not embed_definitions:
        _check_inlined_size(tree, inlined_tree_factor * limits.max_nfa_states, limits.max_nfa_states, source)
    dfa = tree_to_dfa(tree, builder.char_sets, max_states=max_states, source=source)
    return dfa, "any_value" in builder.seen


def _check_inlined_size(tree: rt.Node, most: int, max_nfa_states: int, source: str) -> None:
    """``NFASizeError`` if the inlined tree counts more than ``most`` Thompson states."""
    size = inlined_size(tree)
    if size > most:
        raise NFASizeError(f"the schema's automaton inlined is a tree of {size:,} NFA states, over "
                           f"{most // max_nfa_states:,} times the limit of {max_nfa_states:,}: not built",
                           source=source)


def inlined_size(tree: rt.Node) -> int:
    """The Thompson states of ``tree`` with every mention of a shared subtree counted (what
    ``rt.nfa_size`` would count on the tree unfolded; an embedded DFA counts its states and one),
    in one pass over its distinct nodes: the builder shares subtrees, so the unfolded tree can be
    exponentially larger (Kubernetes kb_148: 5.8e11 states, ~200k distinct nodes).  An upper
    bound on the suffix-sharing NFA (``shared_nfa``), not its size."""
    sizes: dict[int, int] = {}
    stack: list[tuple[rt.Node, bool]] = [(tree, False)]
    while stack:  # post-order without recursion: nested schemas make deep trees
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        parts = _children(node)
        if not children_done and parts:
            stack.append((node, True))
            stack.extend((part, False) for part in parts if id(part) not in sizes)
            continue
        sizes[id(node)] = _own_size(node, [sizes[id(part)] for part in parts])
    return sizes[id(tree)]


def _children(node: rt.Node) -> tuple[rt.Node, ...]:
    if isinstance(node, rt.Concat):
        return node.parts
    if isinstance(node, rt.Alternation):
        return node.options
    if isinstance(node, rt.Repeat):
        return (node.body,)
    return ()


def _own_size(node: rt.Node, part_sizes: list[int]) -> int:
    """``rt.nfa_size``'s count of ``node`` from its parts' counts."""
    if isinstance(node, rt.Concat):
        return sum(part_sizes) + 1
    if isinstance(node, rt.Alternation):
        return sum(part_sizes) + 2
    if isinstance(node, rt.Repeat):
        return part_sizes[0] * rt.repeat_copies(node) + 2
    if isinstance(node, EmbeddedDFA):
        return node.dfa.n_states + 1
    return rt.nfa_size(node)  # a character set (or the empty leaf)
