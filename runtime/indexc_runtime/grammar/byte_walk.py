"""ByteWalk: a grammar index's parser seen as a byte automaton, for tools that compare artifacts.

Why.  ``indexc diff`` walks two artifacts in lock-step, one byte at a time, and compares the
masks they serve at every pair of states it reaches.  A DFA artifact's states are its stored
states.  A grammar artifact's are the parser's *configurations* (``configs``: the lexer
threads alive after a text), which a memo interns by content: two texts that leave the parser
in one configuration are one state, with one mask and one future, and the memo's lazily built
transition table is the byte automaton.  This class is that view, over a memo of its own
(not the index's shared one, which serving matchers use and compact), with the masks a
matcher would serve there (the stored start mask and stored memo included, as in serving).

What it does not do: bound the states.  A recursive grammar has a configuration per nesting
depth, so the caller bounds its walk (the diff's ``max_pairs``); the memo's own limits
(``GrammarLimits``: configurations, Earley sets, threads, walk budget) raise
``GrammarLimitExceeded`` as they do in serving.
"""

from __future__ import annotations

import numpy as np

from indexc_runtime.grammar.configs import DEAD
from indexc_runtime.grammar.errors import GrammarLimits
from indexc_runtime.grammar.matcher import ParserMemo


class ByteWalk:
    """Configurations of a private parser memo of one grammar index, stepped byte by byte."""

    DEAD = DEAD  # no configuration: the text cannot continue (the empty mask, never accepting)

    def __init__(self, index, limits: GrammarLimits | None = None):
        self._memo = ParserMemo(index, limits or index.limits)
        self._memo.use_stored()  # what a matcher does at its first advance
        self._class_of_byte = index._lexer.byte_classes.tolist()  # the same, as a list: step reads one a byte
        self.byte_classes = np.asarray(index._lexer.byte_classes, dtype=np.int64)  # (256,): class of each byte
        self.start: int = self._memo.configs.initial

    def __len__(self) -> int:
        """Configurations made so far (the memo grows with the walk)."""
        return len(self._memo.configs)

    def step(self, config: int, byte: int) -> int:
        """The configuration after one more byte (``DEAD`` from ``DEAD`` or where no thread survives)."""
        if config == DEAD:
            return DEAD
        return self._memo.configs.next(config, self._class_of_byte[byte])

    def accepting(self, config: int) -> bool:
        """Is the text that led here a sentence (end-of-sequence allowed)?"""
        return config != DEAD and bool(self._memo.configs.accepting[config])

    def mask(self, config: int) -> np.ndarray:
        """The int32 bitmask row a matcher at ``config`` serves (memoised: do not modify it)."""
        return self._memo.walker.mask(config)
