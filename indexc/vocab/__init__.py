"""Where the vocabulary is read: tokenizer file -> exact bytes per token id, kinds, eos ids.

Design note.  Everything downstream (trie, masks, artifact, runtime check) sees a tokenizer only
as a ``Vocabulary``: one byte string per id, a kind per id, a set of eos ids and a fingerprint.
The bytes of a token are what it stands for under its tokenizer's own rules, so that the bytes
of an encoded text's tokens concatenate to the text's UTF-8 bytes; the family of rules is read
from the file's content, never from its name.  Readers fill one ``TokenTable`` and share its
rules (special tokens have no bytes, empty tokens are holes, ids are bounded), so a HF file and
a GGUF file of the same tokenizer give the same bytes.

Code map, in reading order:

- ``model``            ``Vocabulary``, ``TokenKind``, the fingerprint (what the rest imports).
- ``load``             ``load_vocabulary`` (dispatch on the file's magic) and
                       ``vocabulary_from_tokens`` (synthetic vocabularies for tests).
- ``hf_json``          a HF tokenizer.json (plain or zstd): model vocab + added tokens.
- ``hf_family``        which spelling rules a tokenizer.json uses (byte-level BPE,
                       SentencePiece BPE, Unigram), from its model and pipeline.
- ``byte_level``       GPT-2's byte-to-unicode map and its vectorised inverse.
- ``sentencepiece``    ``▁`` as a space and ``<0xNN>`` byte-fallback pieces.
- ``gguf_reader``      bounds-checked reading of a GGUF file's metadata key-values.
- ``gguf_vocab``       GGUF tokenizer metadata (tokens, token types, end ids) -> tokens.
- ``token_table``      the id-indexed table every reader fills, frozen into a Vocabulary.
- ``tokenizer_config`` where tokenizer_config.json is and what its ``eos_token`` is.
- ``eos``              the rule for the eos set (declared ids, config, well-known end tokens).
- ``display``          printable forms of token bytes and kinds (for the command line).
- ``greedy_tokens``    longest-match token ids of a text (the warm-up walk's cut; no merges).
"""

from indexc.vocab.hf_json import read_tokenizer_json_text
from indexc.vocab.load import load_vocabulary, vocabulary_from_tokens
from indexc.vocab.model import TEXT_KINDS, TokenKind, Vocabulary

__all__ = [
    "TEXT_KINDS",
    "TokenKind",
    "Vocabulary",
    "load_vocabulary",
    "read_tokenizer_json_text",
    "vocabulary_from_tokens",
]
