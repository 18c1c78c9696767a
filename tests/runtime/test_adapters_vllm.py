"""The vLLM-shaped adapters, driven with plain tensors the way vLLM drives its own (vLLM is not installed).

- ``IndexcLogitsProcessor``: vLLM's per-request ``(output_token_ids, logits) -> logits``; a
  decode loop samples from the masked row of random logits and must produce a text of the
  regex; handing it a shorter token list (a preempted request, a rejected draft) must give
  the mask of that shorter prefix.
- ``IndexcBackend`` / ``IndexcGrammar``: the structured-output backend shape, with a bitmask
  wider than the tokenizer (vLLM sizes it by the model's padded vocabulary).
"""

from __future__ import annotations

import enum
import inspect
import re

import numpy as np
import pytest
import torch

import indexc_runtime
from indexc.pipeline import compile_regex, write
from indexc.trie import build_trie
from indexc_runtime.adapters.vllm import ArtifactCatalog, IndexcBackend, IndexcLogitsProcessor

MODEL_VOCAB = 50_304  # GPT-2 checkpoints pad 50,257 ids to a multiple of 64
EOS = 50_256
PHONE = r"\d{3}-\d{4}"
GREETING = r"Hello, (world|there)!"
StructuredOutputOptions = enum.Enum("StructuredOutputOptions", "JSON JSON_OBJECT REGEX GRAMMAR CHOICE STRUCTURAL_TAG")


@pytest.fixture(scope="module")
def gpt2(bundled_vocabulary):
    vocab = bundled_vocabulary("gpt2")
    return vocab, build_trie(vocab)


@pytest.fixture(scope="module")
def artifact_folder(gpt2, tmp_path_factory):
    vocab, trie = gpt2
    folder = tmp_path_factory.mktemp("catalog")
    for name, pattern in [("phone", PHONE), ("greeting", GREETING)]:
        write(compile_regex(pattern, vocab, trie), vocab, str(folder / f"{name}.idx"))
    return folder


@pytest.fixture(scope="module")
def backend(artifact_folder, gpt2) -> IndexcBackend:
    catalog = ArtifactCatalog(artifact_folder, expected_fingerprint=gpt2[0].fingerprint)
    return IndexcBackend(vllm_config=None, tokenizer=None, vocab_size=MODEL_VOCAB, catalog=catalog)


def text_of(vocab, tokens) -> str:
    return b"".join(vocab.token_bytes[t] for t in tokens).decode("utf-8")


def test_the_processor_takes_vllms_two_argument_form(artifact_folder):
    processor = IndexcLogitsProcessor(indexc_runtime.load(artifact_folder / "phone.idx"))
    assert list(inspect.signature(processor).parameters) == ["output_token_ids", "logits"]


@pytest.mark.parametrize("seed", range(4))
def test_a_decode_loop_through_the_processor_writes_the_regex(artifact_folder, gpt2, seed):
    processor = IndexcLogitsProcessor(indexc_runtime.load(artifact_folder / "phone.idx"))
    generator = torch.Generator().manual_seed(seed)
    output: list[int] = []
    while not output or output[-1] != EOS:
        logits = processor(list(output), torch.randn(MODEL_VOCAB, generator=generator))
        assert torch.isinf(logits[50_257:]).all()  # padding ids
        output.append(int(torch.multinomial(torch.softmax(logits, dim=0), 1, generator=generator)))
        assert len(output) < 20
    assert re.fullmatch(PHONE, text_of(gpt2[0], output[:-1]))


def test_the_processor_follows_a_shorter_or_different_history(artifact_folder, gpt2):
    index = indexc_runtime.load(artifact_folder / "phone.idx")
    processor = IndexcLogitsProcessor(index)
    token_of = {raw: i for i, raw in enumerate(gpt2[0].token_bytes)}
    walk = [token_of[b"555"], token_of[b"-"], token_of[b"12"]]
    processor(walk, torch.zeros(MODEL_VOCAB))
    for history in ([walk[0]], [], [token_of[b"123"], token_of[b"-"]]):
        logits = processor(history, torch.zeros(MODEL_VOCAB))
        reference = index.matcher()
        for token in history:
            reference.advance(token)
        assert np.flatnonzero(torch.isfinite(logits).numpy()).tolist() == reference.allowed_token_ids().tolist()


def test_backend_serves_the_precompiled_regex_and_fills_a_padded_bitmask(backend, gpt2):
    grammar = backend.compile_grammar(StructuredOutputOptions.REGEX, GREETING)
    bitmask = backend.allocate_token_bitmask(4)
    assert bitmask.dtype == torch.int32 and tuple(bitmask.shape) == (4, 1572) and (bitmask == -1).all()
    grammar.fill_bitmask(bitmask, 2)
    expected = np.zeros((1, 1572), dtype=np.int32)
    grammar.matcher.fill_bitmask(expected[:, :1571])
    assert np.array_equal(bitmask[2].numpy(), expected[0])  # word 1571 (ids 50,272..50,303) zero
    assert (bitmask[[0, 1, 3]] == -1).all()
    assert grammar.find_jump_string() == "Hello, "


def test_backend_grammar_accepts_validates_rolls_back_and_terminates(backend, gpt2):
    vocab = gpt2[0]
    token_of = {raw: i for i, raw in enumerate(vocab.token_bytes)}
    grammar = backend.compile_grammar("regex", PHONE)
    draft = [token_of[b"555"], token_of[b"-"], token_of[b"12"], token_of[b"x"], token_of[b"9"]]
    assert grammar.validate_tokens(draft) == draft[:3]
    assert grammar.matcher.num_tokens == 0
    assert not grammar.accept_tokens("request-1", draft)  # all or nothing
    assert grammar.matcher.num_tokens == 0
    assert grammar.accept_tokens("request-1", draft[:3])
    grammar.rollback(1)
    assert grammar.accept_tokens("request-1", [token_of[b"12"], token_of[b"34"], EOS])
    assert grammar.is_terminated()
    bitmask = backend.allocate_token_bitmask(1)
    grammar.fill_bitmask(bitmask, 0)
    bits = np.unpackbits(bitmask.numpy().view(np.uint8), bitorder="little")
    assert np.flatnonzero(bits).tolist() == [EOS]  # a finished request may only stop
    grammar.reset()
    assert not grammar.is_terminated() and grammar.matcher.num_tokens == 0


def test_backend_refuses_what_it_cannot_serve(backend):
    with pytest.raises(KeyError, match=r"no regex artifact .* compiled from '\[a-z\]\+'"):
        backend.compile_grammar(StructuredOutputOptions.REGEX, "[a-z]+")
    with pytest.raises(ValueError, match="not CHOICE"):
        backend.compile_grammar(StructuredOutputOptions.CHOICE, '["a", "b"]')


def test_a_json_schema_artifact_is_found_by_its_canonical_json(gpt2, tmp_path):
    from indexc.pipeline.json_schema import compile_json_schema

    vocab, trie = gpt2
    schema = '{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}'
    write(compile_json_schema(schema, vocab, trie), vocab, str(tmp_path / "ok.idx"))
    backend = IndexcBackend(None, None, MODEL_VOCAB, catalog=ArtifactCatalog(tmp_path))
    respaced = '{"required":["ok"],"type":"object","properties":{"ok":{"type":"boolean"}}}'
    assert backend.compile_grammar(StructuredOutputOptions.JSON, respaced).index.header["constraint"]["source"] == schema


def test_backend_serves_a_grammar_artifact_through_the_same_calls(tmp_path):
    """The grammar path's matcher behind the backend: validate, accept, padded fill, stop."""
    from tests.grammar_path.helpers import EOS as GRAMMAR_EOS
    from tests.grammar_path.helpers import compiled_index, grammar, small_vocabulary

    vocab = small_vocabulary([b"(", b")", b"x", b"((", b"))", b"(x)"])
    parens = grammar("s", {"s": [["LP", "s", "RP"], ["X"]]}, {"LP": r"\(", "RP": r"\)", "X": "x"})
    compiled_index(parens, vocab, tmp_path)
    token_of = {raw: i for i, raw in enumerate(vocab.token_bytes)}
    backend = IndexcBackend(None, None, 64, catalog=ArtifactCatalog(tmp_path))  # model vocab padded to 64 ids
    request = backend.compile_grammar(StructuredOutputOptions.GRAMMAR, parens.source)
    draft = [token_of[b"(("], token_of[b"x"], token_of[b"(x)"]]
    assert request.validate_tokens(draft) == draft[:2]
    assert request.accept_tokens("r", [token_of[b"(("], token_of[b"x"], token_of[b"))"]])
    bitmask = backend.allocate_token_bitmask(2)
    request.fill_bitmask(bitmask, 1)
    allowed = np.flatnonzero(np.unpackbits(bitmask[1].numpy().view(np.uint8), bitorder="little")).tolist()
    assert allowed == [GRAMMAR_EOS]  # "((x))" is complete: only the stop id
    assert (bitmask[0] == -1).all()
    assert request.accept_tokens("r", [GRAMMAR_EOS]) and request.is_terminated()
