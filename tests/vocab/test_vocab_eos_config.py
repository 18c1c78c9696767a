"""The eos set: where the tokenizer_config is found, what it says, the well-known end tokens, overrides."""

from __future__ import annotations

import json
import shutil

import pytest

from indexc.errors import VocabularyError
from indexc.vocab import load_vocabulary
from indexc.vocab.eos import WELL_KNOWN_END_TOKENS

MISTRAL_EOS, MISTRAL_BOS = 2, 1


@pytest.fixture
def mistral_copy(tmp_path, bundled_tokenizer):
    """The Mistral tokenizer alone in a directory (no config beside it)."""
    path = tmp_path / "mistral.json.zst"
    shutil.copyfile(bundled_tokenizer("mistral"), path)
    return path


def write_config(path, eos_token) -> None:
    path.write_text(json.dumps({"eos_token": eos_token, "bos_token": "<s>"}), encoding="utf-8")


def test_without_config_the_well_known_end_tokens_apply(mistral_copy):
    assert load_vocabulary(mistral_copy).eos_ids == (MISTRAL_EOS,)


def test_config_named_after_the_tokenizer_is_preferred(mistral_copy):
    write_config(mistral_copy.with_name("tokenizer_config.json"), "<unk>")
    assert load_vocabulary(mistral_copy).eos_ids == (0, MISTRAL_EOS)
    write_config(mistral_copy.with_name("mistral.tokenizer_config.json"), "<s>")
    assert load_vocabulary(mistral_copy).eos_ids == (MISTRAL_BOS, MISTRAL_EOS)


def test_explicit_config_and_addedtoken_form(mistral_copy, tmp_path):
    config = tmp_path / "elsewhere.json"
    write_config(config, {"__type": "AddedToken", "content": "<s>", "special": True})
    assert load_vocabulary(mistral_copy, config_path=config).eos_ids == (MISTRAL_BOS, MISTRAL_EOS)


def test_config_eos_may_be_a_text_token(mistral_copy, tmp_path):
    config = tmp_path / "c.json"
    write_config(config, "▁the")
    vocab = load_vocabulary(mistral_copy, config_path=config)
    assert vocab.eos_ids == (MISTRAL_EOS, vocab.names.index("▁the"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"eos_token": "<nope>"}', "eos_token '<nope>' is not a token"),
        ('{"eos_token": 5}', "eos_token must be a string"),
        ('{"eos_token": ', "at position 14: tokenizer config is not JSON"),
        ("[]", "not a JSON object"),
    ],
)
def test_bad_configs_are_refused_naming_the_config(mistral_copy, tmp_path, content, message):
    config = tmp_path / "bad_config.json"
    config.write_text(content, encoding="utf-8")
    with pytest.raises(VocabularyError, match=message) as caught:
        load_vocabulary(mistral_copy, config_path=config)
    assert str(caught.value).startswith(str(config))


def test_missing_explicit_config_is_refused(mistral_copy, tmp_path):
    with pytest.raises(VocabularyError, match="cannot read tokenizer config"):
        load_vocabulary(mistral_copy, config_path=tmp_path / "absent.json")


def test_override_replaces_everything_and_is_checked(mistral_copy, tmp_path):
    config = tmp_path / "broken.json"
    config.write_text("not json", encoding="utf-8")
    assert load_vocabulary(mistral_copy, config_path=config, eos_ids=[5, 3]).eos_ids == (3, 5)
    assert load_vocabulary(mistral_copy, eos_ids=[]).eos_ids == ()
    with pytest.raises(VocabularyError, match="eos id 32000 is not a token id"):
        load_vocabulary(mistral_copy, eos_ids=[32000])


def test_vocab_size_smaller_than_the_tokenizer_is_refused(mistral_copy):
    with pytest.raises(VocabularyError, match="model vocab size 100 is smaller than the tokenizer's 32000 ids"):
        load_vocabulary(mistral_copy, vocab_size=100)


def test_well_known_end_tokens_count_only_when_special(bundled_vocabulary):
    vocab = bundled_vocabulary("llama3")
    names = {vocab.names[i] for i in vocab.eos_ids}
    assert names == {"<|end_of_text|>", "<|eot_id|>"} and names <= set(WELL_KNOWN_END_TOKENS)
