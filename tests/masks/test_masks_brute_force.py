"""The mask stage against a brute-force reference on small vocabularies.

The reference walks every token of the vocabulary through the byte DFA from every state:
a token is allowed iff its bytes do not reach the dead state (every stored state is live),
eos iff the state accepts.  It shares nothing with the trie walk but the DFA, which
tests/automaton checks against Python's ``re``.  Every ablation switch must give the same
masks (they change speed, never meaning).
"""

from __future__ import annotations

import pickle
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexc.automaton import compile_regex
from indexc.masks import MaskOptions, compute_mask_table
from indexc.trie import build_trie
from indexc.vocab import vocabulary_from_tokens
from tests.masks.regex_strategies import regexes

ABLATIONS = [
    MaskOptions(jobs=1),
    MaskOptions(jobs=1, byte_classes=False),
    MaskOptions(jobs=1, token_classes=False),
    MaskOptions(jobs=1, dead_byte_pruning=False),
    MaskOptions(jobs=1, states_per_chunk=1),
    MaskOptions(jobs=1, mute_literals=False),
    MaskOptions(jobs=1, min_literal_length=1),
    MaskOptions(jobs=1, slices=True),
    MaskOptions(jobs=1, slices=True, min_slice_tokens=1),
    MaskOptions(jobs=1, slices=True, min_slice_tokens=1, token_classes=False),
    MaskOptions(jobs=1, first_step_sharing=False),
    MaskOptions(jobs=1, first_step_sharing=False, slices=True, min_slice_tokens=1, min_literal_length=1),
]

ALPHABET = ["a", "b", "1", ".", "é", "-"]


def brute_force_mask(dfa, vocab, state: int) -> set[int]:
    allowed = {
        i for i, raw in enumerate(vocab.token_bytes)
        if raw and i not in vocab.eos_ids and dfa.run(raw, state) != -1
    }
    if dfa.accepting[state]:
        allowed |= set(vocab.eos_ids)
    return allowed


def assert_masks_exact(pattern: str, vocab, options: MaskOptions) -> None:
    dfa = compile_regex(pattern)
    table = compute_mask_table(dfa, build_trie(vocab), vocab, options)
    assert table.n_states == dfa.n_states
    for state in range(dfa.n_states):
        got = set(table.masks[table.state_mask[state]].tolist())
        assert got == brute_force_mask(dfa, vocab, state), (pattern, state, options)
    # advance data: each live token's class sequence walks to the same state as its bytes
    for row, token in enumerate(table.live_tokens.tolist()):
        classes = table.token_class_data[table.token_class_offsets[row] : table.token_class_offsets[row + 1]]
        raw = vocab.token_bytes[token]
        assert bytes(table.byte_classes[list(raw)]) == bytes(classes)


def small_vocab(tokens: list[bytes]):
    # ids: the tokens, then a duplicate of the first, then eos (special)
    return vocabulary_from_tokens(list(tokens) + [tokens[0], b""], eos_ids=(len(tokens) + 1,),
                                  special_ids=(len(tokens) + 1,))


FIXED_VOCAB = small_vocab(
    [b"a", b"b", b"ab", b"ba", b"aab", b"1", b".", b"1.", b".2", b"2", b"12", b"-", b"a-",
     "é".encode(), b"\xc3", b"\xa9", "éa".encode(), b"x", b"\xff", b"a1.b"]
)

PATTERNS = [
    r"1(\.2)?", r"a|ab", r"(ab|1)*-", r"[ab]{2,5}", r"a*b*1?", r"(a|b)*-(1|2)+", r"é+a?",
    r"[^a]*", r".{0,3}", r"\d+(\.\d+)?", r"(a|ab)(c|bcd)?", r"x|\xff",
    r"a1\.ba-ab(1|2)*", r"(aab-1\.)+b?", r"-?aab1\.(ba|é)",
]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("options", ABLATIONS, ids=["default", "no-byte-classes", "no-token-classes",
                                                     "no-dead-byte-pruning", "chunk-1", "no-muting",
                                                     "mute-every-literal", "slices", "every-slice",
                                                     "every-slice-byte-trie", "no-first-step-sharing",
                                                     "root-walks-every-slice"])
def test_fixed_patterns_match_brute_force(pattern, options):
    assert_masks_exact(pattern, FIXED_VOCAB, options)


REGEXES = regexes(["a", "b", "1", r"\.", "é", "-", "[ab]", "[^a]", ".", r"\d"], max_repeat=2, max_leaves=6)


token_bytes = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=4).map(lambda cs: "".join(cs).encode())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=REGEXES, tokens=st.lists(token_bytes, min_size=1, max_size=25, unique=True),
       split_utf8=st.booleans())
def test_random_regexes_and_vocabularies(pattern, tokens, split_utf8):
    if split_utf8:  # partial UTF-8 sequences are ordinary tokens
        tokens = tokens + [b"\xc3", b"\xa9"]
    vocab = small_vocab(tokens)
    assert_masks_exact(pattern, vocab, MaskOptions(jobs=1))
    assert_masks_exact(pattern, vocab, MaskOptions(jobs=1, min_literal_length=1, slices=True, min_slice_tokens=1))
    assert_masks_exact(pattern, vocab, MaskOptions(jobs=1, byte_classes=False, token_classes=False))
    assert_masks_exact(pattern, vocab, MaskOptions(jobs=1, first_step_sharing=False))
    assert_masks_exact(pattern, vocab, MaskOptions(jobs=1, loop_regions=False, states_per_chunk=1))
    with mock.patch.multiple("indexc.masks.loop_regions", MIN_REGION_NODES=1, MIN_REGION_STATES=1):
        assert_masks_exact(pattern, vocab, MaskOptions(jobs=1))  # every self-loop walked as a region
    with mock.patch.multiple("indexc.masks.loop_jumps", MIN_JUMP_NODES=0, MIN_JUMP_STATES=1):  # every wide loop jumped
        assert_masks_exact(pattern, vocab, MaskOptions(jobs=1))
        assert_masks_exact(pattern, vocab, MaskOptions(jobs=1, min_literal_length=1, states_per_chunk=2))
    with mock.patch("indexc.masks.first_step.MIN_EQUIVALENCE_STARTS", 0):  # equivalent states always merged
        assert_masks_exact(pattern, vocab, MaskOptions(jobs=1))
        assert_masks_exact(pattern, vocab, MaskOptions(jobs=1, min_literal_length=1))
        assert_masks_exact(pattern, vocab, MaskOptions(jobs=1, byte_classes=False, loop_regions=False))
        with mock.patch.multiple("indexc.masks.first_step", SPLIT_HEIGHT=0, SPLIT_MIN_STARTS=0):  # every inner node's step split
            assert_masks_exact(pattern, vocab, MaskOptions(jobs=1))
            assert_masks_exact(pattern, vocab, MaskOptions(jobs=1, min_literal_length=1))


def test_masks_are_deduplicated_and_deterministic():
    dfa = compile_regex(r"[ab]{0,30}")
    trie = build_trie(FIXED_VOCAB)
    first = compute_mask_table(dfa, trie, FIXED_VOCAB, MaskOptions(jobs=1))
    second = compute_mask_table(dfa, trie, FIXED_VOCAB, MaskOptions(jobs=1, states_per_chunk=3))
    assert len(first.masks) < dfa.n_states  # most states share a mask
    assert len({m.tobytes() for m in first.masks}) == len(first.masks)
    assert np.array_equal(first.state_mask, second.state_mask)
    assert all(np.array_equal(a, b) for a, b in zip(first.masks, second.masks))


def test_first_step_sharing_walks_each_first_step_once_and_changes_nothing():
    """States whose first steps agree share starts; the table is the one of root walks."""
    from indexc.masks.compute import _walk_plan
    from indexc.masks.alphabet import byte_alphabet
    from indexc.masks.first_step import first_steps, root_starts
    from indexc.masks.slices import Slices

    dfa = compile_regex(r"(1|a-)?[ab]*\.")  # on b, three states go to the loop: one shared start
    trie = build_trie(FIXED_VOCAB)
    plan = _walk_plan(dfa, trie, byte_alphabet(dfa), Slices.none(dfa.n_states), MaskOptions(jobs=1))
    origins = np.arange(dfa.n_states)
    shared, alone = first_steps(plan, origins), root_starts(plan, origins)
    per_state = [shared.of(s).size for s in range(dfa.n_states)]
    assert len(shared.starts) < sum(per_state)  # some first steps are shared between states
    assert len(alone.starts) == dfa.n_states
    with_sharing = compute_mask_table(dfa, trie, FIXED_VOCAB, MaskOptions(jobs=1))
    without = compute_mask_table(dfa, trie, FIXED_VOCAB, MaskOptions(jobs=1, first_step_sharing=False))
    assert np.array_equal(with_sharing.state_mask, without.state_mask)
    assert all(np.array_equal(a, b) for a, b in zip(with_sharing.masks, without.masks))


@pytest.mark.parametrize("pattern", PATTERNS + [r'("[ab1.é-]*",)*"[ab]*"', r"(a[ab1.]*-|b[ab1.]*\.)+"])
def test_loop_regions_give_the_same_masks(pattern, monkeypatch):
    """Every self-loop region used (the real threshold is for big vocabularies), against brute force."""
    import indexc.masks.loop_regions as loop_regions

    monkeypatch.setattr(loop_regions, "MIN_REGION_NODES", 1)
    monkeypatch.setattr(loop_regions, "MIN_REGION_STATES", 1)
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1))
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1, mute_literals=False, states_per_chunk=2))


JUMP_PATTERNS = [r"(a[ab1.]*-|b[ab1.]*\.)+", r"(a[ab12]*-|b[ab12]*\.|1[ab2]*a)+", r"-[ab1.]*-[ab1.]*\."]  # wide loops


@pytest.mark.parametrize("pattern", PATTERNS + JUMP_PATTERNS + [r'("[ab1.é-]*",)*"[ab]*"', r"[^-]*-[^.]*\.[ab]*"])
def test_loop_jumps_give_the_same_masks(pattern, monkeypatch):
    """Every wide self-loop jumped over mid-walk (the real thresholds are for big vocabularies)."""
    import indexc.masks.loop_jumps as loop_jumps

    monkeypatch.setattr(loop_jumps, "MIN_JUMP_NODES", 0)
    monkeypatch.setattr(loop_jumps, "MIN_JUMP_STATES", 1)
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1))
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1, mute_literals=False, states_per_chunk=2))
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1, min_literal_length=1))


@pytest.mark.parametrize("pattern", JUMP_PATTERNS)
def test_loop_jumps_are_taken_and_cut_the_walk(pattern, monkeypatch):
    """The patterns above do jump (so the test above is not vacuous): fewer frontier triples
    are stepped, the hit sets are the same."""
    import indexc.masks.loop_jumps as loop_jumps
    import indexc.masks.traverse as traverse
    from indexc.masks.alphabet import byte_alphabet
    from indexc.masks.compute import _walk_plan
    from indexc.masks.first_step import root_starts
    from indexc.masks.slices import Slices

    monkeypatch.setattr(loop_jumps, "MIN_JUMP_NODES", 0)
    monkeypatch.setattr(loop_jumps, "MIN_JUMP_STATES", 1)
    dfa = compile_regex(pattern)
    trie = build_trie(FIXED_VOCAB)
    options = MaskOptions(jobs=1, mute_literals=False)
    with_jumps = _walk_plan(dfa, trie, byte_alphabet(dfa), Slices.none(dfa.n_states), options)
    assert with_jumps.jumps is not None and with_jumps.jumps.tables
    without = traverse.WalkPlan(*[getattr(with_jumps, f) for f in ("class_trie", "class_transitions", "byte_trie",
                                                                   "byte_transitions", "muted", "slice_of_state")])
    stepped = []
    real_step = traverse._step
    monkeypatch.setattr(traverse, "_step",
                        lambda frontier, *a, **k: stepped.append(len(frontier)) or real_step(frontier, *a, **k))
    starts = root_starts(with_jumps, np.arange(dfa.n_states)).starts
    ids = np.arange(len(starts))
    hits_with = traverse.hit_sets_of_starts(with_jumps, starts, ids)
    jumped, stepped[:] = sum(stepped), []
    hits_without = traverse.hit_sets_of_starts(without, starts, ids)
    assert jumped < sum(stepped)
    assert all(np.array_equal(a, b) for a, b in zip(hits_with, hits_without))


@pytest.mark.parametrize("pattern", JUMP_PATTERNS)
def test_a_jump_reads_the_node_ranges_it_kept_as_it_would_search_them(pattern, monkeypatch):
    """``NodeRanges`` keeps each node's member and exit ranges from the first jump that meets it:
    later jumps over repeated and new nodes give what binary searches of the keys give."""
    import indexc.masks.loop_jumps as loop_jumps
    from indexc.masks.alphabet import byte_alphabet
    from indexc.masks.compute import _walk_plan
    from indexc.masks.slices import Slices

    monkeypatch.setattr(loop_jumps, "MIN_JUMP_NODES", 0)
    monkeypatch.setattr(loop_jumps, "MIN_JUMP_STATES", 1)
    dfa = compile_regex(pattern)
    plan = _walk_plan(dfa, build_trie(FIXED_VOCAB), byte_alphabet(dfa), Slices.none(dfa.n_states),
                      MaskOptions(jobs=1, mute_literals=False))
    ct, table = plan.class_trie, plan.jumps.tables[0]
    state = int(np.flatnonzero(plan.jumps.table_of_state == 0)[0])
    nodes = np.arange(ct.n_nodes, dtype=np.int64)
    for part in (nodes[::3], nodes[::2], nodes[::-1]):  # the second and third meet kept and new nodes
        got_origin, got_node, got_exits = loop_jumps.jump(table, ct, plan.class_transitions, part,
                                                          np.full(part.size, state), part)
        base = table.run_of[part] * ct.n_nodes + ct.preorder[part]
        end = base + ct.subtree_sizes[part]
        expected_hits, expected_exits = [], []
        for origin, member_lo, member_hi, exit_lo, exit_hi in zip(
                part.tolist(), np.searchsorted(table.member_key, base + 1).tolist(),
                np.searchsorted(table.member_key, end).tolist(), np.searchsorted(table.exit_key, base + 1).tolist(),
                np.searchsorted(table.exit_key, end).tolist()):
            expected_hits += [(origin, node) for node in table.member_node[member_lo:member_hi].tolist()]
            for k in range(exit_lo, exit_hi):
                target = int(plan.class_transitions[state, table.exit_class[k]])
                expected_exits += [(origin, target, int(table.exit_node[k]))] if target >= 0 else []
        assert list(zip(got_origin.tolist(), got_node.tolist())) == expected_hits
        assert list(zip(*(column.tolist() for column in got_exits))) == expected_exits
        shipped = pickle.loads(pickle.dumps(table))  # as to a worker process: the kept ranges stay behind
        again = loop_jumps.jump(shipped, ct, plan.class_transitions, part, np.full(part.size, state), part)
        assert all(np.array_equal(a, b) for a, b in zip(again[:2] + again[2], (got_origin, got_node) + got_exits))


def test_loop_regions_are_found_once_per_loop_set(monkeypatch):
    import indexc.masks.loop_regions as loop_regions
    from indexc.masks.alphabet import byte_alphabet
    from indexc.masks.compute import _walk_plan
    from indexc.masks.slices import Slices

    monkeypatch.setattr(loop_regions, "MIN_REGION_NODES", 1)
    monkeypatch.setattr(loop_regions, "MIN_REGION_STATES", 2)
    dfa = compile_regex(r"[ab]*-([ab]*\.)?")  # two loops on the same classes, left by - and .
    plan = _walk_plan(dfa, build_trie(FIXED_VOCAB), byte_alphabet(dfa), Slices.none(dfa.n_states),
                      MaskOptions(jobs=1, mute_literals=False))
    region_of, regions = loop_regions.loop_regions(plan, np.arange(dfa.n_states))
    assert len(regions) == 1 and (region_of == 0).sum() == 2
    assert regions[0].hits.size > 0 and regions[0].exit_node.size > 0


@pytest.mark.parametrize("pattern", JUMP_PATTERNS)
def test_a_loop_region_read_from_its_jump_table_is_the_walked_one(pattern, monkeypatch):
    import indexc.masks.loop_jumps as loop_jumps
    import indexc.masks.loop_regions as loop_regions
    from indexc.masks.alphabet import byte_alphabet
    from indexc.masks.compute import _walk_plan
    from indexc.masks.slices import Slices

    monkeypatch.setattr(loop_jumps, "MIN_JUMP_NODES", 0)
    monkeypatch.setattr(loop_jumps, "MIN_JUMP_STATES", 1)
    monkeypatch.setattr(loop_regions, "MIN_REGION_NODES", 1)
    dfa = compile_regex(pattern)
    plan = _walk_plan(dfa, build_trie(FIXED_VOCAB), byte_alphabet(dfa), Slices.none(dfa.n_states),
                      MaskOptions(jobs=1, mute_literals=False))
    loops = plan.class_transitions == np.arange(dfa.n_states)[:, None]
    compared = 0
    for state in np.flatnonzero(plan.jumps.table_of_state >= 0).tolist():
        read = loop_regions._region(plan, loops[state], state)
        walked = loop_regions._walked_region(plan.class_trie, loops[state])
        assert read is not None and walked is not None
        for field in ("hits", "exit_node", "exit_class"):
            assert np.array_equal(getattr(read, field), getattr(walked, field))
        compared += 1
    assert compared


@pytest.mark.parametrize("pattern", PATTERNS + JUMP_PATTERNS + [r'("[ab1.é-]*",)*"[ab]*"', r"[^-]*-[^.]*\.[ab]*"])
def test_starts_merged_by_the_classes_below_their_node_give_the_same_masks(pattern, monkeypatch):
    import indexc.masks.first_step as first_step

    monkeypatch.setattr(first_step, "MIN_CROWDED_STARTS", 1)
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1))
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1, mute_literals=False))
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1, byte_classes=False))


def test_string_bodies_share_their_starts_below_letters(monkeypatch):
    """Two string bodies that differ only after their closing quote: on a node with only letters
    below it, their starts are one (and the masks are still exact)."""
    import indexc.masks.first_step as first_step
    from indexc.masks.alphabet import byte_alphabet
    from indexc.masks.compute import _walk_plan
    from indexc.masks.slices import Slices

    pattern = r'"[ab]*"-"[ab]*"\.'
    vocab = small_vocab([b"a", b"b", b"ab", b"ba", b"aba", b'"', b"-", b".", b'b"', b'"-'])
    dfa = compile_regex(pattern)
    plan = _walk_plan(dfa, build_trie(vocab), byte_alphabet(dfa), Slices.none(dfa.n_states),
                      MaskOptions(jobs=1, mute_literals=False))
    counted = {}
    for crowded in (10**9, 1):
        monkeypatch.setattr(first_step, "MIN_CROWDED_STARTS", crowded)
        steps = first_step.first_steps(plan, np.arange(dfa.n_states), state_alphabet=byte_alphabet(dfa))
        counted[crowded] = len(steps.starts)
    assert counted[1] < counted[10**9]
    assert_masks_exact(pattern, vocab, MaskOptions(jobs=1, mute_literals=False))


@pytest.mark.parametrize("pattern", [r"(ab|1)*-", r"[^a]*", r".{0,3}", r"a1\.ba-ab(1|2)*"] + JUMP_PATTERNS[:1])
def test_a_chunk_whose_frontier_outgrows_its_budget_is_walked_in_halves(pattern, monkeypatch):
    import indexc.masks.compute as compute
    import indexc.masks.traverse as traverse

    halved = []
    real_joined = traverse._joined
    monkeypatch.setattr(traverse, "_joined", lambda a, b: halved.append(1) or real_joined(a, b))
    monkeypatch.setattr(compute, "MAX_FRONTIER_PAIRS", 2)
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1))
    assert halved  # the budget was hit, and the halves give the exact masks


def test_worker_processes_give_the_same_table():
    """The joblib path (forced on: no time threshold, tiny chunks) equals the in-process walk."""
    dfa = compile_regex(r"(a|b|1|\.)*-[ab]{1,4}(é|1)?")
    trie = build_trie(FIXED_VOCAB)
    serial = compute_mask_table(dfa, trie, FIXED_VOCAB, MaskOptions(jobs=1))
    parallel = compute_mask_table(dfa, trie, FIXED_VOCAB,
                                  MaskOptions(jobs=2, states_per_chunk=1, parallel_min_seconds=0.0))
    assert np.array_equal(serial.state_mask, parallel.state_mask)
    assert all(np.array_equal(a, b) for a, b in zip(serial.masks, parallel.masks))


@pytest.mark.parametrize("pattern", PATTERNS[:8])
def test_gather_expansion_equals_scatter(pattern, monkeypatch):
    """Real vocabularies take the gather path for dense masks; force it on the small one."""
    import indexc.masks.expand as expand

    monkeypatch.setattr(expand, "GATHER_FROM_TOKENS", -1)
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1))


@pytest.mark.parametrize("split_height", [0, 1, 1000])
@pytest.mark.parametrize("pattern", PATTERNS + [r"[ab]{0,30}", r"a{3,9}(b|1\.)", r"(a[ab]{0,6}-){1,3}"])
def test_equivalent_states_give_the_same_masks(pattern, split_height, monkeypatch):
    """Starts merged by ``equivalence`` (forced on, whatever the start count), and tall steps
    split into their children's, change no mask."""
    monkeypatch.setattr("indexc.masks.first_step.MIN_EQUIVALENCE_STARTS", 0)
    monkeypatch.setattr("indexc.masks.first_step.SPLIT_HEIGHT", split_height)
    monkeypatch.setattr("indexc.masks.first_step.SPLIT_MIN_STARTS", 0)
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1))
    assert_masks_exact(pattern, FIXED_VOCAB, MaskOptions(jobs=1, min_literal_length=1))  # byte-mode walks


@pytest.mark.parametrize("pattern", PATTERNS)
def test_class_nodes_of_live_tokens_agree_with_the_owner_table(pattern):
    """``HitExpander.class_nodes_of`` looks few tokens up in the class trie's own sorted token
    list; the vocabulary-sized owner table must give the same nodes, ``n_nodes`` for tokens
    the class trie dropped."""
    from indexc.masks.compute import _prepare
    from indexc.masks.expand import HitExpander

    dfa = compile_regex(pattern)
    _, _, plan = _prepare(dfa, build_trie(FIXED_VOCAB), MaskOptions(jobs=1))
    tokens = np.arange(FIXED_VOCAB.size, dtype=np.int64)
    looked_up = HitExpander(plan, FIXED_VOCAB.size).class_nodes_of(tokens)
    owner = HitExpander(plan, FIXED_VOCAB.size)._owner[tokens]
    assert looked_up.tolist() == owner.tolist()
    assert (owner == plan.class_trie.n_nodes).any()  # some token is in no class node
