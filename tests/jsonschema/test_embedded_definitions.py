"""Definitions built as their own minimal DFAs (``expr_to_dfa(embed_definitions=True)``): the
same DFA as inlining, from a far smaller NFA, and the route that tries it when inlining is over
the NFA limit (``pipeline.json_schema._dfa_with_embedded_definitions``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from indexc.errors import LimitError, NFASizeError, RegexError
from indexc.jsonschema import JsonSchemaOptions, lower_schema, to_automaton
from indexc.jsonschema.to_automaton import expr_to_dfa
from indexc.pipeline import CompileOptions
from indexc.pipeline.json_schema import build_dfa_or_route


def repeated(uses: int) -> str:
    """An object whose ``uses`` properties all name one definition: an enum of 300 words that
    share a long suffix, ~13,000 Thompson states inlined but ~450 minimal DFA states."""
    words = [f"item{i:03d}_and_a_long_common_suffix_for_all" for i in range(300)]
    return json.dumps({"$defs": {"w": {"enum": words}}, "type": "object", "additionalProperties": False,
                       "properties": {f"p{k}": {"$ref": "#/$defs/w"} for k in range(uses)}})


SMALL = CompileOptions(max_states=10_000)  # NFA limit 40,000: four uses inlined are over it


def lowered(text: str, **options):
    return lower_schema(text, JsonSchemaOptions(**options), source="w.json")


def same_dfa(a, b) -> bool:
    return np.array_equal(a.transitions, b.transitions) and np.array_equal(a.accepting, b.accepting)


@pytest.mark.parametrize("uses", [1, 2, 3])
def test_embedding_builds_the_same_dfa_as_inlining(uses):
    schema = lowered(repeated(uses))
    inlined, any_inlined = expr_to_dfa(schema, max_states=100_000)
    embedded, any_embedded = expr_to_dfa(schema, max_states=100_000, embed_definitions=True)
    assert same_dfa(inlined, embedded) and any_inlined == any_embedded


def test_embedding_keeps_the_any_value_flag():
    text = json.dumps({"$defs": {"v": {"type": "object"}},
                       "type": "object", "properties": {"p": {"$ref": "#/$defs/v"}, "q": {"$ref": "#/$defs/v"}}})
    inlined, any_inlined = expr_to_dfa(lowered(text), max_states=100_000)
    embedded, any_embedded = expr_to_dfa(lowered(text), max_states=100_000, embed_definitions=True)
    assert any_inlined and any_embedded and same_dfa(inlined, embedded)


def test_a_schema_over_the_nfa_limit_inlined_takes_the_dfa_path_embedded():
    with pytest.raises(NFASizeError):
        expr_to_dfa(lowered(repeated(4)), max_states=SMALL.max_states)
    for mode in ("auto", "dfa"):
        dfa, route = build_dfa_or_route(lowered(repeated(4), mode=mode), SMALL, source="w.json")
        assert route.path == "dfa" and dfa is not None and dfa.n_states < 4_000
        assert "definitions embedded as their own minimal DFAs (inlined, the schema's automaton needs over 40,000" \
            in route.reason


def test_a_recursive_schema_is_not_tried_again():
    text = json.dumps({"$defs": {"l": {"type": "array", "items": [{"$ref": "#/$defs/l"}, {"$ref": "#/$defs/l"}]}},
                       "$ref": "#/$defs/l"})
    dfa, route = build_dfa_or_route(lowered(text), SMALL, source="l.json")
    assert dfa is None and route.reason.startswith("recursive")


def test_the_auto_route_gives_the_second_attempt_its_own_limit():
    """Embedded, the DFA is over ``dfa_max_states``: the auto route refuses it there and goes to
    the grammar path; ``--mode dfa`` keeps ``--max-states``' limit."""
    dfa, route = build_dfa_or_route(lowered(repeated(4), dfa_max_states=500), SMALL, source="w.json")
    assert dfa is None and route.path == "cfg"
    assert route.reason == ("DFA over the auto-mode limits (inlined, the schema's automaton needs over 40,000 NFA "
                            "states; with its definitions embedded as DFAs, the schema's automaton needs over 2,000 "
                            "NFA states)")
    dfa, route = build_dfa_or_route(lowered(repeated(4), mode="dfa", dfa_max_states=500), SMALL, source="w.json")
    assert route.path == "dfa"


def test_a_definition_that_matches_nothing_is_inlined(monkeypatch):
    """A definition's own DFA found empty (``RegexError``) is inlined instead, where the
    alternatives around it decide; the DFA is the inlined one."""
    schema = lowered(repeated(2))
    inlined, _ = expr_to_dfa(schema, max_states=100_000)
    whole = to_automaton.tree_to_atom_dfa

    def refuse_definitions(tree, char_sets, limits, **kwargs):
        if kwargs.get("breadth_first", True):  # a definition's own DFA (the whole schema's is not breadth-first)
            raise RegexError("the schema matches no JSON text", source="w.json")
        return whole(tree, char_sets, limits, **kwargs)

    monkeypatch.setattr(to_automaton, "tree_to_atom_dfa", refuse_definitions)
    embedded, _ = expr_to_dfa(schema, max_states=100_000, embed_definitions=True)
    assert same_dfa(inlined, embedded)


def test_mode_dfa_says_both_attempts_when_both_fail():
    with pytest.raises(LimitError, match=r"^w\.json: inlined, the schema's automaton needs over 4,000 NFA states; "
                                         r"with its definitions embedded as DFAs, the schema's automaton needs over "
                                         r"4,000 NFA states$"):
        build_dfa_or_route(lowered(repeated(40), mode="dfa"), CompileOptions(max_states=1_000), source="w.json")


def test_the_definitions_share_one_nfa_budget():
    """Sixteen definitions of 12,902 Thompson states each, every one named twice: each fits the
    NFA limit alone (40,000 here), all of them pass the shared budget (4 x 40,000)."""
    words = [f"item{i:03d}_and_a_long_common_suffix_for_all" for i in range(300)]
    defs = {f"w{k}": {"enum": [f"{k:x}{word}" for word in words]} for k in range(16)}
    props = {f"p{k}{j}": {"$ref": f"#/$defs/w{k}"} for k in range(16) for j in range(2)}
    text = json.dumps({"$defs": defs, "type": "object", "additionalProperties": False, "properties": props})
    dfa, route = build_dfa_or_route(lowered(text), SMALL, source="w.json")
    assert dfa is None and route.reason.endswith(
        "with its definitions embedded as DFAs, the definitions built as their own DFAs need over 160,000 NFA "
        "states in all)")


def test_inlined_size_counts_every_mention_of_a_shared_subtree():
    """``inlined_size`` is ``rt.nfa_size`` of the tree unfolded, counted over its distinct nodes."""
    from indexc.automaton import regex_tree as rt

    leaf = rt.Chars(0)
    shared = rt.Concat((leaf, rt.Repeat(leaf, 2, 5)))
    tree = rt.Alternation((shared, rt.Concat((shared, shared, rt.EMPTY))))
    assert to_automaton.inlined_size(tree) == rt.nfa_size(tree) == 3 * rt.nfa_size(shared) + 1 + 1 + 2
    deep = leaf
    for _ in range(60):  # 2**60 leaves unfolded, 61 distinct nodes
        deep = rt.Concat((deep, deep))
    assert to_automaton.inlined_size(deep) == 2 ** 61 - 1 + 2 ** 60 - 1 + 1


def test_the_auto_route_does_not_build_an_inlined_tree_far_over_the_limit(monkeypatch):
    """Over ``INLINED_TREE_FACTOR`` times the NFA limit (1 here: four uses of a definition of
    ~38,000 tree states against 40,000), the auto route goes to the embedded definitions without
    building the inlined NFA: the same DFA as ``--mode dfa``, which builds it, fails and embeds."""
    from indexc.pipeline import json_schema

    monkeypatch.setattr(json_schema, "INLINED_TREE_FACTOR", 1)
    dfa, route = build_dfa_or_route(lowered(repeated(4)), SMALL, source="w.json")
    assert route.path == "dfa" and "inlined is a tree of" in route.reason and "not built" in route.reason
    built, dfa_route = build_dfa_or_route(lowered(repeated(4), mode="dfa"), SMALL, source="w.json")
    assert same_dfa(dfa, built) and "not built" not in dfa_route.reason
    small, small_route = build_dfa_or_route(lowered(repeated(1)), SMALL, source="w.json")  # ~38k: inlined
    assert "embedded" not in small_route.reason and small_route.path == "dfa"
