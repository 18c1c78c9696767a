"""llguidance with forcing turned off, as an exact token-mask oracle for regexes.

What it does.  ``LlgOracle(tokenizer)`` builds one ``llguidance.LLTokenizer`` per tokenizer
(cached: 0.3-0.6 s for GPT-2, 1.2 s for Llama-3, 1.6 s for Qwen2 on this machine), and
``oracle.matcher(regex)`` wraps an ``LLMatcher`` on the Lark grammar

    %llguidance {"no_forcing": true}
    start: /<regex>/

so that each mask is "every token whose bytes keep a full match reachable, EOS iff the text
so far is a full match" -- the exact semantics of DESIGN.md ("Mask semantics").

What was checked (see ``test_llguidance_oracle.py``, numbers from llguidance 1.9.1):

- Forcing.  With llguidance's default (forcing on), ``abcdefgh|abcdxyz`` allows only the
  token ``ab`` at the start with GPT-2 (the canonical tokenization of the forced prefix
  ``abcd``); with ``no_forcing`` it allows ``a``, ``ab`` and ``abc``.  The oracle always turns
  forcing off.
- Tokens that leave an accepting state.  With a vocabulary ``{1, ., 2}`` and ``1(\\.2)?``,
  after ``1`` both ``.`` and EOS are allowed; ``a|ab`` allows ``a`` and ``ab``, and after
  ``a`` both ``b`` and EOS (outlines-core 0.2.14 drops ``.`` and ``ab`` here).
- EOS.  The EOS ids are the tokenizer's (``LLTokenizer.eos_tokens``) unless overridden: it
  guesses one id from tokenizer.json alone -- GPT-2 50256, Llama-3 128001 (``<|end_of_text|>``,
  not ``<|eot_id|>``), Qwen2 151643 (``<|endoftext|>``, while tokenizer_config.json says
  ``<|im_end|>``), Mistral 2 (``</s>``).  Pass ``eos_ids=`` to compare with a vocabulary whose
  EOS set differs; every listed id is allowed exactly in accepting states.
- Dead ends.  When no token at all can continue a non-accepting state (only possible with a
  vocabulary that misses bytes), llguidance stops with "NoExtensionBias", enters its error
  state and reports a mask holding EOS alone.  ``allowed_ids()`` returns that verbatim;
  ``exact_allowed_ids()`` drops EOS there (the DESIGN mask is empty).
- Special tokens.  ``is_special_token`` is true for every added token (GPT-2: 1, Llama-3: 256,
  Qwen2: 22, Mistral: 3) -- including the ones tokenizer.json marks ``"special": false``, which
  DESIGN.md counts as text: Qwen2's 8 (``<tool_call>``, ``</tool_call>``, ``<|fim_prefix|>``,
  ...) are never allowed, not even by ``(.|\n)*``, though ``token_bytes`` gives their text.
  Comparisons on Qwen2 must leave those ids out.  It is also true for the token whose bytes
  are the single byte 0xFF (GPT-2 and Llama-3 id 187, Mistral ``<0xFF>`` id 258): llguidance
  uses byte 0xFF as its special-token marker.  No regex can match 0xFF (llguidance only matches valid UTF-8 and
  refuses ``(?-u:\\xff)``: "pattern can match invalid UTF-8"), so this costs nothing in
  comparisons.  Special tokens other than EOS never appear in a regex mask.  Several ids with
  the same bytes (Mistral has 125 such pairs, e.g. ``<0x01>`` and a plain piece) are all allowed.
- Invalid UTF-8.  ``.*`` allows 50,142 of GPT-2's 50,257 tokens: the 115 refused are the
  single-byte tokens that can never start valid UTF-8 (continuation bytes 0x80-0xBF, 0xC0,
  0xC1, 0xF5-0xFF); lead bytes such as 0xC3 are allowed as they can be completed.
- Regex dialect: Rust ``regex`` syntax, matched against the whole text.  ``^``/``$``/``\\A``/
  ``\\z`` at the very start or end are accepted and mean nothing more than the implicit
  whole-text match; anchors anywhere else (``a^b``, ``a$b``, ``(?m)a$\\nb``), ``\\b`` and
  look-arounds are refused ("lookarounds not supported yet"), as are ``a{,3}`` and ``\\Z``.
  ``.`` excludes ``\\n`` (as in Python); ``(?i)``, ``(?x)``, ``\\p{Greek}``, ``[[:alpha:]]`` work.
- ``\\d \\w \\s`` are Unicode, as in Python's ``re``, but the two disagree on some characters
  (measured over every code point, llguidance 1.9.1 vs Python 3.11 / Unicode 14.0):
  ``\\d``: 100 digits only in Rust (digits added after Unicode 14, e.g. U+10D40).
  ``\\w``: 12,014 only in Rust -- combining marks (Mn 1,950, Mc 445, Me 13, e.g. U+0301),
  connector punctuation other than ``_`` (9, e.g. U+203F), circled letters (So 130, e.g.
  U+24B6), ZWNJ/ZWJ (U+200C, U+200D) and 9,465 letters newer than Unicode 14; 895 only in
  Python -- the "other numbers" No, e.g. ``²`` U+00B2, ``½`` U+00BD.
  ``\\s``: U+001C-U+001F only in Python (Rust follows White_Space).
  ASCII agrees everywhere.  ``class_differences`` recomputes such lists, so a comparison can
  keep its texts and vocabularies clear of them.

Not supported: a tokenizer llguidance cannot read (T5's Metaspace decoder: "can't determine
decoder type") raises ``OracleError``; build such a vocabulary with ``from_token_bytes``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Sequence

import llguidance
import numpy as np

from .tokenizer_source import TokenizerSource, tokenizer_json_text

NO_FORCING_HEADER = '%llguidance {"no_forcing": true}'
SPECIAL_MARKER = b"\xff"  # llguidance's prefix for the bytes of a special token


class OracleError(ValueError):
    """llguidance refused the tokenizer or the regex (the message is llguidance's)."""


class TokenRejected(ValueError):
    """``advance`` was given a token that the current mask does not allow."""


def regex_grammar(pattern: str) -> str:
    """The Lark grammar that makes llguidance match ``pattern`` whole, without forcing."""
    return f"{NO_FORCING_HEADER}\nstart: /{llguidance.regex_to_lark(pattern, '')}/\n"


class LlgRegexMatcher:
    """One walk through a regex: the mask now, advance on a token, may it stop here."""

    def __init__(self, oracle: "LlgOracle", matcher: llguidance.LLMatcher):
        self._oracle = oracle
        self._matcher = matcher

    def allowed_ids(self) -> np.ndarray:
        """Sorted ids llguidance allows now, EOS and special tokens as llguidance reports them."""
        packed = np.frombuffer(self._matcher.compute_bitmask(), dtype=np.uint8)
        bits = np.unpackbits(packed, bitorder="little")[: self._oracle.vocab_size]
        return np.flatnonzero(bits)

    def exact_allowed_ids(self) -> np.ndarray:
        """The DESIGN mask: ``allowed_ids`` without specials, EOS only when accepting."""
        allowed = self.allowed_ids()
        never = self._oracle.special_ids
        if self.is_accepting():
            never = np.setdiff1d(never, self._oracle.eos_ids)
        return np.setdiff1d(allowed, never, assume_unique=True)

    def advance(self, token_id: int) -> None:
        if not self._matcher.consume_token(int(token_id)):
            raise TokenRejected(f"token {token_id} refused: {self._matcher.get_error()[:200]}")

    def is_accepting(self) -> bool:
        return bool(self._matcher.is_accepting())

    def is_dead_end(self) -> bool:
        """True once llguidance has stopped in a non-accepting state (see the module note)."""
        return bool(self._matcher.is_error()) and not self.is_accepting()


class LlgOracle:
    """llguidance on one tokenizer; ``matcher(regex)`` starts a walk."""

    _tokenizers: dict[tuple, llguidance.LLTokenizer] = {}

    def __init__(self, tokenizer: TokenizerSource, *, eos_ids: Sequence[int] | None = None):
        text = tokenizer_json_text(tokenizer)
        key = (hashlib.sha256(text.encode("utf-8")).hexdigest(), _eos_key(eos_ids))
        if key not in self._tokenizers:
            self._tokenizers[key] = _build_tokenizer(text, eos_ids)
        self._init_from(self._tokenizers[key])

    @classmethod
    def from_token_bytes(cls, tokens: Sequence[bytes | None], eos_ids: Sequence[int]) -> "LlgOracle":
        """A small hand-made vocabulary: ``tokens[i]`` is the bytes of id i, ``None`` a special.

        The EOS ids must be ``None`` entries.  Not cached: small vocabularies build in microseconds.
        """
        oracle = cls.__new__(cls)
        oracle._init_from(llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokenizer(tokens, eos_ids))))
        return oracle

    def _init_from(self, tokenizer: llguidance.LLTokenizer) -> None:
        self.tokenizer = tokenizer
        self.vocab_size = int(tokenizer.vocab_size)
        self.eos_ids = np.array(sorted(tokenizer.eos_tokens), dtype=np.int64)
        self.special_ids = np.array(
            [i for i in range(self.vocab_size) if tokenizer.is_special_token(i)], dtype=np.int64
        )

    def matcher(self, pattern: str) -> LlgRegexMatcher:
        grammar = regex_grammar(pattern)
        matcher = llguidance.LLMatcher(self.tokenizer, grammar, log_level=0)
        if matcher.is_error():
            raise OracleError(f"llguidance refused regex {pattern!r}: {_first_line(matcher.get_error())}")
        return LlgRegexMatcher(self, matcher)

    def token_bytes(self, token_id: int) -> bytes:
        """What the token stands for, as llguidance reads it (``b""`` for special tokens)."""
        return self.tokenizer.decode_bytes([int(token_id)])

    def token_table(self) -> list[bytes | None]:
        """Bytes of every id, ``None`` for special tokens: the vocabulary other engines get."""
        special = set(self.special_ids.tolist())
        return [None if i in special else self.token_bytes(i) for i in range(self.vocab_size)]

    def tokenize(self, text: str) -> list[int]:
        """llguidance's tokenization (the HF tokenizer's, with a greedy tail)."""
        return list(self.tokenizer.tokenize_str(text))


@dataclass(frozen=True)
class ClassDifference:
    """Characters on which a class escape differs between llguidance (Rust) and Python ``re``."""

    only_llguidance: str
    only_python: str


def class_differences(oracle: LlgOracle, class_regex: str,
                      codepoints: range = range(0x110000)) -> ClassDifference:
    """Compare ``class_regex`` (one character, e.g. ``\\w``) in llguidance and in Python.

    Each character is tokenized and checked with ``validate_tokens`` (no state change): a whole
    character that is a valid prefix of a one-character language is in it.  About 1 s for all
    1.1 M code points with GPT-2.
    """
    matcher = llguidance.LLMatcher(oracle.tokenizer, regex_grammar(class_regex), log_level=0)
    python = re.compile(class_regex)
    only_llg: list[str] = []
    only_py: list[str] = []
    for codepoint in codepoints:
        if 0xD800 <= codepoint <= 0xDFFF:
            continue
        char = chr(codepoint)
        tokens = oracle.tokenizer.tokenize_str(char)
        in_llg = matcher.validate_tokens(tokens) == len(tokens)
        in_py = python.fullmatch(char) is not None
        if in_llg != in_py:
            (only_llg if in_llg else only_py).append(char)
    return ClassDifference("".join(only_llg), "".join(only_py))


class _ByteTokenizer:
    """The duck-typed tokenizer ``llguidance.TokenizerWrapper`` reads: bytes per id, EOS, specials.

    The encoder (greedy longest match) only serves llguidance's own ``tokenize_*`` helpers;
    masks never use it.
    """

    def __init__(self, tokens: Sequence[bytes | None], eos_ids: Sequence[int]):
        if any(tokens[i] is not None for i in eos_ids):
            raise OracleError("EOS ids must be special (None) entries")
        self.special_token_ids = [i for i, raw in enumerate(tokens) if raw is None]
        self.tokens = [SPECIAL_MARKER + f"<special_{i}>".encode() if raw is None else raw
                       for i, raw in enumerate(tokens)]
        self.eos_token_id = list(eos_ids)[0]
        self.bos_token_id = None
        self._by_length = sorted((i for i, raw in enumerate(tokens) if raw), key=lambda i: -len(tokens[i]))

    def __call__(self, text: bytes) -> list[int]:
        ids, position = [], 0
        while position < len(text):
            match = next((i for i in self._by_length if text.startswith(self.tokens[i], position)), None)
            if match is None:
                raise OracleError(f"no token covers byte {position} of {text!r}")
            ids.append(match)
            position += len(self.tokens[match])
        return ids


def _build_tokenizer(text: str, eos_ids: Sequence[int] | None) -> llguidance.LLTokenizer:
    try:
        return llguidance.LLTokenizer(text, eos_token=list(eos_ids) if eos_ids is not None else None)
    except Exception as exc:  # llguidance raises plain ValueError/RuntimeError from Rust
        raise OracleError(f"llguidance cannot read this tokenizer: {exc}") from exc


def _eos_key(eos_ids: Sequence[int] | None) -> tuple[int, ...] | None:
    return None if eos_ids is None else tuple(int(i) for i in eos_ids)


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else message
