"""The grammar path's rendering: a lowered schema -> ``indexc.grammar.ir.Grammar``.

Every ``Ref`` becomes a nonterminal, so recursion costs nothing and a definition used in a
hundred places is one set of rules (where the regex rendering copies it a hundred times).
Lexemes: adjacent ``Lex`` nodes of a sequence are glued into one terminal (a property key and
its quotes, a number), each distinct regex is one terminal (an ``Intersection`` lexeme is
one terminal with ``also`` regexes, intersected by ``indexc.grammar.lexemes``); whitespace goes at
exactly the places the DFA path allows it (not a global ``%ignore``, which would also allow it
before the first and after the last token and would not respect a bounded
``whitespace_pattern``), glued into the bracket or separator beside it (``{[ \t\n\r]*``,
``[ \t\n\r]*,[ \t\n\r]*``; a place with neither would be an optional ``ws`` symbol, and a
nullable symbol there splits configurations: ``_GrammarBuilder._spaced``); the brackets and
separators are then copied once per follow context (``indexc.grammar.follow_split``, ``schema_grammar``),
so that the compiler's per-lexer-state token sets see the few terminals that really follow
each copy.  Repetitions become rules: ``x{2,4}`` is
``x x`` then a chain of two optional ``x``; ``x*`` a left-recursive list (Earley-friendly);
counts over ``SHORT_COUNT`` use blocks of 2**k copies, so ``maxItems: 1000`` or the 2,048
chunks of a ``maxLength: 65535`` string (``strings``) take O(log n) rules, not O(n): the
grammar of MaskBench's Github_hard---o82740 went from 8,302 chain rules to a few dozen.
Shared subtrees (the suffix expressions of ``objects``) are rendered once, by identity.
"""

from __future__ import annotations

from indexc.grammar.follow_split import split_by_follow
from indexc.grammar.ir import Grammar, GrammarError, Rule, Terminal
from indexc.grammar.lexemes import TerminalDFAs, terminal_dfas
from indexc.jsonschema.expr import Alt, Expr, Intersection, Lex, Ref, Repeat, Seq, Ws, has_top_level_bar
from indexc.jsonschema.lowering import LoweredSchema
from indexc.jsonschema.punctuation import structural_lexemes
from indexc.jsonschema.strings import QUOTE
from indexc.limits import DEFAULT_MAX_STATES

START = "start"
WHITESPACE = "ws"  # an optional-whitespace nonterminal where no bracket or separator takes it (``_spaced``)
SHORT_COUNT = 8  # counts up to this are spelled out; longer ones take O(log count) rules
# The lexer states up to which a schema's whitespace and punctuation are copied per follow
# context (``schema_grammar``; ``indexc.pipeline.json_schema`` passes it).  4,096 until session
# 13, when it was also the bound past which a lexer got no undecided sets: six of the 48
# grammar-path files of the every-4th MaskBench run have 4,110-5,220 states (kb_675, kb_711,
# o69209, o82740, o62920, o82151); with their sets the 48 files' cold walks went 4,799 -> 4,142
# ms CPU, masks over 200 us 5,019 -> 4,688, for compile 147 -> 168 s in all (o82740 3.1 -> 8.4
# s, o82151 4.3 -> 8.2 s).  Above it, with the copies and every terminal's sets, sp_152 (6,936
# states) took 13.3 s and o18637 (12,107) 8.2 s; see ``schema_grammar`` for why the copies stop here.
MAX_LEXER_STATES = 6_144


def schema_grammar(lowered: LoweredSchema, *, source: str = "<schema>", max_lexer_states: int | None = None,
                   max_states: int = DEFAULT_MAX_STATES, dfas: TerminalDFAs | None = None) -> Grammar:
    """The schema's grammar, its whitespace and punctuation copied per follow context
    (``follow_split``) unless that would take its lexer past ``max_lexer_states`` states: the
    copies add a few states each (hundreds in all on MaskBench's large schemas: o65415 3,577 ->
    4,259, past the limit of 4,096 it had then), and past ``MAX_LEXER_STATES`` the compile of
    undecided sets for every terminal costs seconds more with the copies
    (Snowplow sp_152: 13.3 s, 8.1 s without) while they did not spare slow masks (session 14,
    o18637 with the sets of 6,144 states' worth of terminals: 523 masks over 200 us with the
    copies, 497 without).  ``dfas``
    keeps the terminal DFAs compiled to count the states, for the compile that follows."""
    builder = _GrammarBuilder(lowered)
    root = builder.symbols_of(lowered.root)
    builder.rules.append(Rule(START, tuple(root)))
    grammar = Grammar(START, tuple(builder.rules), builder.terminals, (), source)
    split = split_by_follow(grammar, [WHITESPACE, *builder.structural_terminals()])
    if split is grammar or max_lexer_states is None:
        return split
    try:  # every terminal, the ones the compile trims away too: an upper bound of the lexer
        blocks = terminal_dfas(list(split.terminals.values()), max_states=max_states, source=source, dfas=dfas)
    except GrammarError:  # a terminal that fails is the compile's to report, if it keeps it
        return split
    return split if sum(block.n_states for block in blocks) <= max_lexer_states else grammar


class _GrammarBuilder:
    def __init__(self, lowered: LoweredSchema):
        self.lowered = lowered
        self.rules: list[Rule] = []
        self.terminals: dict[str, Terminal] = {}
        self.terminal_names: dict[tuple, str] = {}
        self.memo: dict[int, tuple[str, ...]] = {}
        self.keep_alive: list[Expr] = []  # the memo is by id(): keep the keys alive
        self.refs: dict[str, str] = {}
        self.powers: dict[tuple[tuple[str, ...], int], str] = {}
        self.bounded_lists: dict[tuple[tuple[str, ...], int], str] = {}
        self.counter = 0
        options = lowered.options
        self.structural = structural_lexemes(options.item_separator, options.key_separator)  # brackets, separators
        self.structural_names: set[str] = set()  # their terminals, glued to their whitespace

    def fresh(self, hint: str) -> str:
        self.counter += 1
        return f"{hint}_{self.counter}"

    def terminal(self, regex: str, also: tuple[str, ...] = (), excluding: tuple[str, ...] = (), *,
                 structural: bool = False) -> str:
        """The terminal of a lexeme (``also``: regexes it must match as well; ``excluding``:
        regexes it must not match), one per distinct lexeme; ``structural``: a bracket or a
        separator, with its whitespace (``structural_terminals``)."""
        key = (regex, also, excluding)
        name = self.terminal_names.get(key)
        if name is None:
            name = f"T{len(self.terminal_names)}"
            self.terminal_names[key] = name
            self.terminals[name] = Terminal(name, regex, also=also, excluding=excluding)
        if structural:
            self.structural_names.add(name)
        return name

    def structural_terminals(self) -> list[str]:
        """The terminals of the brackets and separators (plain lexemes, not glued to a key), and
        the bare quote of a long string (``strings._chunked_body``).

        The quote is one terminal for the opening and the closing quote of every long string,
        so what may follow it is a string's body as well as a comma or a bracket, and from a
        string's last lexeme every token with a quote inside (``".``, ``"+``) may cross two
        boundaries: undecided (``undecided_tokens``), walked at every position of the string.
        Copied per follow context, the closing quote is followed by what follows a value only.
        Github_medium o9771 (``maxLength: 32767`` strings), a mask inside one: 982 open tokens
        -> 241.  The 20 long-string files of the every-4th MaskBench run, cold walks of every
        instance: 1,457-1,477 -> 977-988 ms CPU, masks over 200 us 1,284-1,288 -> 1,141-1,179,
        every mask the same; their compile 111 -> 98 s (smaller undecided sets)."""
        structural = self.structural | {QUOTE}
        return [name for (regex, also, excluding), name in self.terminal_names.items()
                if (regex in structural or name in self.structural_names) and not also and not excluding]

    def symbols_of(self, expr: Expr) -> tuple[str, ...]:
        """The symbol string ``expr`` stands for (possibly empty)."""
        key = id(expr)
        if key in self.memo:
            return self.memo[key]
        symbols = self._symbols(expr)
        self.memo[key] = symbols
        self.keep_alive.append(expr)
        return symbols

    def _symbols(self, expr: Expr) -> tuple[str, ...]:
        if isinstance(expr, Lex):
            return (self.terminal(expr.regex),)
        if isinstance(expr, Intersection):
            return (self.terminal(expr.regexes[0], expr.regexes[1:], expr.excluded),)
        if isinstance(expr, Ws):
            return (self.whitespace(),) if self.lowered.options.whitespace_terminal is not None else ()
        if isinstance(expr, Seq):
            return self.sequence(expr.items)
        if isinstance(expr, Alt):
            name = self.fresh("alt")
            for option in expr.options:
                self.rules.append(Rule(name, self.symbols_of(option)))
            return (name,)
        if isinstance(expr, Repeat):
            return self.repetition(expr)
        assert isinstance(expr, Ref)
        return (self.reference(expr.name),)

    def sequence(self, items: tuple[Expr, ...]) -> tuple[str, ...]:
        """Symbols of a sequence: each run of adjacent lexemes is one terminal; under a whitespace
        policy a bracket or separator is a terminal of its own, with the whitespace beside it
        (``_spaced``)."""
        spaced = self.lowered.options.whitespace_terminal is not None
        pieces = self._spaced(items) if spaced else [(item, "", "") for item in items]
        structural = self.structural if spaced else frozenset()
        out: list[str] = []
        glued: list[str] = []
        for item, leading, trailing in pieces:
            if isinstance(item, Lex) and item.regex not in structural:
                glued.append(f"(?:{item.regex})" if has_top_level_bar(item.regex) else item.regex)
                continue
            if glued:
                out.append(self.terminal("".join(glued)))
                glued = []
            if isinstance(item, Lex):
                out.append(self.terminal(leading + item.regex + trailing, structural=True))
            else:
                out.extend(self.symbols_of(item))
        if glued:
            out.append(self.terminal("".join(glued)))
        return tuple(out)

    def _spaced(self, items: tuple[Expr, ...]) -> list[tuple[Expr, str, str]]:
        """``(item, leading, trailing)`` whitespace regexes: a ``Ws`` next to a bracket or separator
        is glued to it, after the one before it (``{``, ``,``) else before the one after it
        (``}``, ``]``); a ``Ws`` with neither stays the ``ws`` symbol.

        Why: as a nullable ``ws`` symbol after ``{``, the Earley set after ``{`` held ``. ws`` items
        that the set after ``{ `` did not, so every item predicted there named another origin and
        ``{"a":[{}`` and ``{ "a":[{}`` were two configurations (two cold masks, one per nesting
        level; session 23's finding).  Glued, ``{`` and ``{ `` are one terminal scanned from one set,
        and the ``ws`` items, their predictions and completions are gone from every set: the 34
        grammar-path files of every 4th MaskBench file, cold walks of every instance, every mask
        byte-identical: masks over 200 us 991 -> 772, walk 779 -> 677 ms, compile 92.4 -> 85.8 s
        CPU, artifacts 3.5% smaller (``docs/grammar-path.md``, session 25)."""
        space = self.lowered.options.whitespace_regex
        pieces: list[list] = [[item, "", ""] for item in items]
        kept: list[list] = []
        for i, piece in enumerate(pieces):
            if not isinstance(piece[0], Ws):
                kept.append(piece)
                continue
            before, after = (kept[-1] if kept else None), (pieces[i + 1] if i + 1 < len(pieces) else None)
            if before is not None and self._is_structural(before[0]) and not before[2]:
                before[2] = space
            elif after is not None and self._is_structural(after[0]) and not after[1]:
                after[1] = space
            else:
                kept.append(piece)
        return [(item, leading, trailing) for item, leading, trailing in kept]

    def _is_structural(self, item: Expr) -> bool:
        return isinstance(item, Lex) and item.regex in self.structural

    def repetition(self, expr: Repeat) -> tuple[str, ...]:
        item = self.symbols_of(expr.item)
        if expr.max is None:
            name = self.fresh("list")
            self.rules.append(Rule(name, ()))
            self.rules.append(Rule(name, (name, *item)))
            return self.exactly(item, expr.min) + (name,)
        return self.exactly(item, expr.min) + self.at_most(item, expr.max - expr.min)

    def exactly(self, item: tuple[str, ...], count: int) -> tuple[str, ...]:
        """``count`` copies: spelled out when short, else one block of 2**k copies per set bit."""
        if count <= SHORT_COUNT:
            return item * count
        return tuple(self.power(item, k) for k in range(count.bit_length()) if count >> k & 1)

    def at_most(self, item: tuple[str, ...], count: int) -> tuple[str, ...]:
        """0..``count`` copies, unambiguously.  Short counts: a chain of nested optionals
        (``opt1 -> ε | x opt2``).  Long ones in O(log count) rules: 0..2**j-1 copies are the
        optional blocks of 2**0, ..., 2**(j-1) copies (binary digits), and 0..d with top bit
        j is "0..2**j-1" or "2**j, then 0..d-2**j"."""
        if count == 0:
            return ()
        if count <= SHORT_COUNT:
            optional_tail: tuple[str, ...] = ()
            for _ in range(count):
                name = self.fresh("opt")
                self.rules.append(Rule(name, ()))
                self.rules.append(Rule(name, (*item, *optional_tail)))
                optional_tail = (name,)
            return optional_tail
        key = (item, count)
        if key not in self.bounded_lists:
            top = count.bit_length() - 1
            below = tuple(self.optional_power(item, k) for k in range(top))
            name = self.bounded_lists[key] = self.fresh("upto")
            self.rules.append(Rule(name, below))
            self.rules.append(Rule(name, (self.power(item, top), *self.at_most(item, count - (1 << top)))))
        return (self.bounded_lists[key],)

    def power(self, item: tuple[str, ...], k: int) -> str:
        """A nonterminal for exactly 2**k copies of ``item`` (``p_k -> p_(k-1) p_(k-1)``)."""
        key = (item, k)
        if key not in self.powers:
            name = self.powers[key] = self.fresh("pow")
            half = self.power(item, k - 1) if k else None
            self.rules.append(Rule(name, (half, half) if half else item))
        return self.powers[key]

    def optional_power(self, item: tuple[str, ...], k: int) -> str:
        key = (item, -1 - k)
        if key not in self.powers:
            name = self.powers[key] = self.fresh("optpow")
            self.rules.append(Rule(name, ()))
            self.rules.append(Rule(name, (self.power(item, k),)))
        return self.powers[key]

    def reference(self, name: str) -> str:
        symbol = self.refs.get(name)
        if symbol is None:
            symbol = self.refs[name] = f"def_{name}"
            self.rules.append(Rule(symbol, self.symbols_of(self.lowered.definitions[name])))
        return symbol

    def whitespace(self) -> str:
        if WHITESPACE not in self.refs:
            self.refs[WHITESPACE] = WHITESPACE
            self.rules.append(Rule(WHITESPACE, ()))
            self.rules.append(Rule(WHITESPACE, (self.terminal(self.lowered.options.whitespace_terminal),)))
        return WHITESPACE
