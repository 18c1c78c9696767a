"""``follow_split``: a shared symbol copied per follow context keeps the language and narrows
each copy's FOLLOW (what the undecided sets are computed from)."""

from __future__ import annotations

import json
import random

import numpy as np

from indexc.grammar.boundary_masks import follow_pairs
from indexc.grammar.earley_tables import build_tables, trimmed
from indexc.grammar.follow_split import split_by_follow
from indexc.grammar.lexemes import terminal_dfas
from indexc.jsonschema import JsonSchemaOptions, lower_schema
from indexc.jsonschema.to_grammar import schema_grammar
from tests.grammar_path.helpers import grammar
from tests.reference.grammar_oracle import GrammarOracle

# A list of numbers and an object of booleans, sharing the whitespace, the comma and the brackets.
SHARED = grammar(
    "s",
    {"s": [["list"], ["obj"]],
     "list": [["LB", "ws", "NUM", "more", "ws", "RB"]], "more": [["more", "ws", "COMMA", "ws", "NUM"], []],
     "obj": [["LC", "ws", "KEY", "ws", "COLON", "ws", "BOOL", "rest", "ws", "RC"]],
     "rest": [["rest", "ws", "COMMA", "ws", "KEY", "ws", "COLON", "ws", "BOOL"], []],
     "ws": [["WS"], []]},
    {"LB": r"\[", "RB": r"\]", "LC": r"\{", "RC": r"\}", "COMMA": ",", "COLON": ":", "NUM": "[0-9]+",
     "KEY": '"k"', "BOOL": "true|false", "WS": "[ ]+"})


def _follow_by_name(g) -> dict[str, set[str]]:
    rules, names, warnings = trimmed(g)
    tables = build_tables(g, rules, names, np.zeros(len(names), dtype=bool), warnings)
    return {tables.terminal_names[t]: {tables.terminal_names[u] for u in follow}
            for t, follow in follow_pairs(tables).items()}


def test_copies_have_narrower_follow_sets():
    split = split_by_follow(SHARED, ["ws", "COMMA"])
    split.validate()
    whitespace = [t for t in split.terminals if t.startswith("WS")]
    commas = [t for t in split.terminals if t.startswith("COMMA")]
    assert len(whitespace) > 1 and len(commas) == 2
    before, after = _follow_by_name(SHARED), _follow_by_name(split)
    assert "BOOL" in before["WS"] and "NUM" in before["WS"]
    for copy in whitespace:
        assert not {"BOOL", "NUM"} <= after[copy]  # no copy is followed by both a number and a boolean
    assert all(len(after[c]) < len(before["COMMA"]) for c in commas)


def test_one_context_leaves_the_grammar_as_it_was():
    single = grammar("s", {"s": [["A", "ws", "B"]], "ws": [["WS"], []]}, {"A": "a", "B": "b", "WS": " +"})
    assert split_by_follow(single, ["ws", "A"]) is single


def test_language_is_unchanged():
    split = split_by_follow(SHARED, ["ws", "COMMA", "LB", "RB", "LC", "RC", "COLON"])
    original, copied = GrammarOracle(SHARED), GrammarOracle(split)
    rng = random.Random(11)
    texts = [b"[1, 2 ,3 ]", b'{"k": true , "k":false}', b"[1,", b'{ "k" :', b"[1, true]", b'{"k": 1}']
    for oracle in (original, copied):
        texts += [t for t in (oracle.random_sentence(rng, max_bytes=40) for _ in range(30)) if t is not None]
    for text in texts:
        for end in range(len(text) + 1):
            assert original.is_prefix(text[:end]) == copied.is_prefix(text[:end]), text[:end]
        assert original.accepts(text) == copied.accepts(text), text


TWO_LISTS = {"type": "object", "properties": {
    "points": {"type": "array", "items": {"type": "number"}},
    "flags": {"type": "array", "items": {"type": "boolean"}},
    "child": {"$ref": "#"}}}


WS = "[\\x20\\x0A\\x0D\\x09]*"
COMMA, OPEN_ARRAY = f"{WS},{WS}", f"\\[{WS}"


def test_schema_grammar_splits_whitespace_and_punctuation():
    """The brackets and separators carry the whitespace beside them (no nullable ``ws`` symbol
    is left) and are copied per follow context, each copy followed by a few terminals."""
    g = schema_grammar(lower_schema(TWO_LISTS, JsonSchemaOptions()))
    g.validate()
    regexes = [t.regex for t in g.terminals.values()]
    assert regexes.count(COMMA) > 1 and regexes.count(OPEN_ARRAY) > 1
    assert not any(symbol == "ws" or symbol.startswith("ws__") for rule in g.rules for symbol in (rule.lhs, *rule.rhs))
    follow = _follow_by_name(g)
    spaced = [name for name, t in g.terminals.items() if t.regex in (COMMA, OPEN_ARRAY)]
    assert all(len(follow[name]) < len(g.terminals) // 2 for name in spaced)


def test_schema_grammar_glues_whitespace_so_one_position_is_one_configuration(bundled_vocabulary, tmp_path):
    """``{"a":[{}`` and ``{ "a" : [ {}`` end in one parser configuration: with a nullable ``ws``
    symbol after ``{`` the two differed in every item predicted there, one more configuration
    (and cold mask) per nesting level where whitespace varied (session 23's finding)."""
    import indexc_runtime
    from indexc.masks import MaskOptions
    from indexc.pipeline import CompileOptions, write
    from indexc.pipeline.json_schema import compile_json_schema
    from indexc.trie.build import build_trie

    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#"}}}}
    vocab = bundled_vocabulary("gpt2")
    result = compile_json_schema(json.dumps(schema), vocab, build_trie(vocab), CompileOptions(MaskOptions(jobs=1)),
                                 schema_options=JsonSchemaOptions(mode="cfg"))
    write(result, vocab, str(tmp_path / "s.idx"))
    walk = indexc_runtime.load(str(tmp_path / "s.idx")).byte_walk()

    def configuration(text: str) -> int:
        config = walk.start
        for byte in text.encode():
            config = walk.step(config, byte)
        assert config != walk.DEAD, text
        return config

    spellings = ['{"a":[{}', '{ "a":[{}', '{"a" :[{}', '{"a": [{}', '{"a":[ {}', '{\t"a"\n:\r[ \t{ }']
    assert len({configuration(text) for text in spellings}) == 1
    deeper = ['{"a":[{"a":[{"a":[', '{ "a" : [ { "a" : [ { "a" : [ ']
    assert len({configuration(text) for text in deeper}) == 1


def test_schema_grammar_keeps_one_copy_when_the_copies_would_pass_the_lexer_limit():
    lowered = lower_schema(TWO_LISTS, JsonSchemaOptions())
    split = schema_grammar(lowered)
    dfas: dict = {}
    states = sum(block.n_states for block in terminal_dfas(list(split.terminals.values()), max_states=100_000,
                                                           source="t", dfas=dfas))
    assert schema_grammar(lowered, max_lexer_states=states, dfas=dfas).terminals.keys() == split.terminals.keys()
    single = schema_grammar(lowered, max_lexer_states=states - 1, dfas=dfas)
    assert [t.regex for t in single.terminals.values()].count(COMMA) == 1
    assert len(single.terminals) < len(split.terminals)


LONG_STRINGS = {"type": "object", "properties": {
    "note": {"type": "string", "maxLength": 1000},
    "body": {"type": "array", "items": {"type": "string", "minLength": 200}}}}


def test_schema_grammar_splits_a_long_strings_quote_into_opening_and_closing():
    """The bare quote of a chunked string (``strings.QUOTE``) is copied per follow context: the
    closing quote is followed by what follows a value, never by a string's body, so a token
    such as ``abc".`` cannot cross two boundaries from the string's last lexeme."""
    g = schema_grammar(lower_schema(LONG_STRINGS, JsonSchemaOptions()))
    g.validate()
    quotes = [name for name, t in g.terminals.items() if t.regex == '"']
    assert len(quotes) > 1
    follow = _follow_by_name(g)
    bodies = {name for name, t in g.terminals.items() if t.regex != '"' and "{32}" in t.regex}
    assert bodies  # the 32-character chunks
    closing = [q for q in quotes if not follow[q] & bodies]
    opening = [q for q in quotes if follow[q] & bodies]
    assert closing and opening
    for q in closing:
        assert all(not g.terminals[u].regex.startswith('"') for u in follow[q] if u in g.terminals)
    oracle = GrammarOracle(g)
    note = b'{"note": "' + b"x" * 70 + b'"'
    assert oracle.is_prefix(note + b", ") and oracle.is_prefix(note + b"}") and not oracle.is_prefix(note + b".")
