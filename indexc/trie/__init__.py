"""The token trie: the vocabulary's text tokens as one flat, DFS-ordered trie (numpy arrays).

Design note.  A mask is "every token whose bytes keep the automaton alive"; tokens sharing a
prefix share that part of the work, so the masks stage walks a trie instead of the token list,
and cuts a whole subtree as soon as its prefix dies.  Laid out flat in DFS pre-order (seed
000), a subtree is an id range, so skipping it is an addition and the walk needs no recursion;
the same order is the tokens' byte order, so a subtree's tokens are one slice.  The trie is
built with numpy from the sorted token bytes (no Python loop per node): ~60 ms for Llama-3.
See docs/token-trie.md for the layout, the walk and measured figures.

Code map, in reading order:

    model.py       TokenTrie: the arrays and what each means; small lookups
    byte_order.py  lexicographic order and common prefixes of the token bytes (numpy)
    pre_order.py   the tree's shape from pre-order depths: parents, subtree sizes, pops, levels
    build.py       build_trie(vocab): tokens -> nodes -> TokenTrie
    walk.py        seed 000's non-recursive walk driven by a byte recognizer (reference walker)
"""

from indexc.trie.build import build_trie
from indexc.trie.model import NO_TOKEN, TokenTrie
from indexc.trie.walk import ByteFilter, ByteRecognizer, StateStack, walk_nodes, walk_tokens

__all__ = [
    "NO_TOKEN",
    "ByteFilter",
    "ByteRecognizer",
    "StateStack",
    "TokenTrie",
    "build_trie",
    "walk_nodes",
    "walk_tokens",
]
