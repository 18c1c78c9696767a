"""The transformers adapter, for real: ``generate`` on a tiny randomly initialised GPT-2 (no downloads).

The model is built from a config in the test (one layer, 32-wide) with a vocabulary padded to
50,304 ids, larger than the bundled GPT-2 tokenizer's 50,257 (as real checkpoints pad theirs),
so the padding ids must be masked too.  It samples (``do_sample=True``) several sequences per
regex: whatever a random model prefers, every generated text must be accepted by the regex
(Python's ``re.fullmatch`` over the exact bytes of the tokens), and end with the stop token.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel, LogitsProcessorList

import indexc_runtime
from indexc.pipeline import compile_regex, write
from indexc.trie import build_trie
from indexc_runtime.adapters.transformers import IndexcLogitsProcessor

MODEL_VOCAB = 50_304
EOS = 50_256
REGEXES = [
    r"\d{3}-\d{4}",
    r"(yes|no|maybe)",
    r"[a-z]{2,6}@[a-z]{2,5}\.(com|org)",
    r'\{"n": -?\d{1,3}\}',
    r"(red|green|blue)( and (red|green|blue)){0,2}",
]
MAX_NEW_TOKENS = 40  # more than the longest text of any regex above, in tokens, plus the stop token
PROMPT = [[464, 3280, 318], [40, 892, 340]]  # two prompts of three ids


@pytest.fixture(scope="module")
def gpt2(bundled_vocabulary):
    vocab = bundled_vocabulary("gpt2")
    assert vocab.size == 50_257 and tuple(vocab.eos_ids) == (EOS,)
    return vocab, build_trie(vocab)


@pytest.fixture(scope="module")
def artifacts(gpt2, tmp_path_factory) -> dict[str, indexc_runtime.Index]:
    vocab, trie = gpt2
    folder = tmp_path_factory.mktemp("gpt2-artifacts")
    indexes = {}
    for number, pattern in enumerate(REGEXES):
        path = folder / f"{number}.idx"
        write(compile_regex(pattern, vocab, trie), vocab, str(path))
        indexes[pattern] = indexc_runtime.load(path, expected_fingerprint=vocab.fingerprint)
    return indexes


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """A 1-layer model gains nothing from threads, and on a shared 2-core machine they cost 5-10x."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def model() -> GPT2LMHeadModel:
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=MODEL_VOCAB, n_positions=128, n_embd=32, n_layer=1, n_head=2,
                        bos_token_id=EOS, eos_token_id=EOS)
    return GPT2LMHeadModel(config).eval()


def generated_texts(model, processor, prompts: list[list[int]], vocab, *, seed: int, samples: int = 1,
                    stops: tuple[int, ...] = (EOS,)):
    torch.manual_seed(seed)
    input_ids = torch.tensor(prompts)
    output = model.generate(input_ids, attention_mask=torch.ones_like(input_ids), do_sample=True, top_k=0,
                            max_new_tokens=MAX_NEW_TOKENS, num_return_sequences=samples,
                            logits_processor=LogitsProcessorList([processor]),
                            eos_token_id=processor.stop_token_ids, pad_token_id=EOS)
    texts = []
    for row in output[:, input_ids.shape[1]:].tolist():
        end = next((position for position, token in enumerate(row) if token in stops), None)
        assert end is not None, f"no stop token in {row}"
        texts.append(b"".join(vocab.token_bytes[t] for t in row[:end]).decode("utf-8"))
    return texts


def finite_ids(row: torch.Tensor) -> list[int]:
    return np.flatnonzero(torch.isfinite(row).numpy()).tolist()


@pytest.mark.parametrize("pattern", REGEXES)
def test_every_sampled_text_is_accepted_by_the_regex(model, artifacts, gpt2, pattern):
    processor = IndexcLogitsProcessor(artifacts[pattern])
    texts = []
    for seed in range(3):
        texts += generated_texts(model, processor, PROMPT, gpt2[0], seed=seed, samples=2)
    assert len(texts) == 12
    for text in texts:
        assert re.fullmatch(pattern, text), text


def test_one_batch_mixes_artifacts_one_per_sequence(model, artifacts, gpt2):
    patterns = REGEXES[:4]
    processor = IndexcLogitsProcessor([artifacts[p] for p in patterns])
    prompts = [[464, 3280, 318]] * len(patterns)
    for seed in range(2):
        for pattern, text in zip(patterns, generated_texts(model, processor, prompts, gpt2[0], seed=seed)):
            assert re.fullmatch(pattern, text), (pattern, text)


def test_without_the_processor_the_random_model_does_not_follow_the_regex(model, gpt2):
    """The constraint is what makes the texts match: unconstrained, this model emits noise."""
    torch.manual_seed(0)
    output = model.generate(torch.tensor(PROMPT), attention_mask=torch.ones(2, 3, dtype=torch.long), do_sample=True,
                            top_k=0, max_new_tokens=8, pad_token_id=EOS)
    texts = [b"".join(gpt2[0].token_bytes[t] for t in row if t < 50_257).decode("utf-8", "replace")
             for row in output[:, 3:].tolist()]
    assert not any(re.fullmatch(REGEXES[0], text) for text in texts)


def test_scores_of_padding_ids_and_disallowed_tokens_are_minus_infinity(artifacts):
    index = artifacts[REGEXES[1]]  # (yes|no|maybe)
    processor = IndexcLogitsProcessor(index)
    scores = torch.zeros(2, MODEL_VOCAB)
    processor(torch.tensor(PROMPT), scores)
    allowed = set(index.matcher().allowed_token_ids().tolist())
    for row in scores:
        finite = set(finite_ids(row))
        assert finite == allowed
    assert all(t < 50_257 for t in allowed)


def test_a_new_prompt_restarts_the_matchers(artifacts, gpt2):
    index = artifacts[REGEXES[1]]
    processor = IndexcLogitsProcessor(index)
    yes = gpt2[0].token_bytes.index(b"yes")
    processor(torch.tensor([[1, 2]]), torch.zeros(1, MODEL_VOCAB))
    processor(torch.tensor([[1, 2, yes]]), torch.zeros(1, MODEL_VOCAB))
    scores = torch.zeros(1, MODEL_VOCAB)
    processor(torch.tensor([[1, 2, yes, EOS]]), scores)  # finished: only the stop token is left
    assert finite_ids(scores[0]) == [EOS]
    scores = torch.zeros(1, MODEL_VOCAB)
    processor(torch.tensor([[7]]), scores)  # shorter input: a new generation from its first state
    assert set(finite_ids(scores[0])) == set(index.matcher().allowed_token_ids().tolist())


def test_several_stop_ids_each_end_a_sequence(model, bundled_tokenizer, tmp_path):
    """An artifact whose stop set has two ids (50255 made a second eos): generate stops on either."""
    from indexc.vocab import load_vocabulary

    vocab = load_vocabulary(bundled_tokenizer("gpt2"), eos_ids=[EOS, 50_255])
    write(compile_regex(REGEXES[1], vocab, build_trie(vocab)), vocab, str(tmp_path / "two-stops.idx"))
    processor = IndexcLogitsProcessor(indexc_runtime.load(tmp_path / "two-stops.idx"))
    assert processor.stop_token_ids == [50_255, EOS]
    for seed in range(3):
        for text in generated_texts(model, processor, PROMPT, vocab, seed=seed, samples=2, stops=(EOS, 50_255)):
            assert re.fullmatch(REGEXES[1], text), text


def test_a_processor_reused_for_a_longer_prompt_starts_afresh(model, artifacts, gpt2):
    """A second generate whose prompt is longer than the first's whole output is a new generation."""
    processor = IndexcLogitsProcessor(artifacts[REGEXES[0]])
    generated_texts(model, processor, PROMPT, gpt2[0], seed=0)
    long_prompt = [list(range(100, 160)), list(range(200, 260))]
    for text in generated_texts(model, processor, long_prompt, gpt2[0], seed=1):
        assert re.fullmatch(REGEXES[0], text), text
