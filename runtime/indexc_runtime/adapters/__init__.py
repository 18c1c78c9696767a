"""Adapters: indexc masks inside the generation loops people already run (optional extras).

Design note.  Each adapter follows its library's own conventions and adds nothing but the
bookkeeping that library expects of a constraint: which tokens of the running sequences the
matchers have already seen, what a finished sequence may still emit, and how a bitmask meets
that library's logits.  The masks themselves come from ``fill_bitmasks`` and
``apply_bitmask``, so every adapter serves mixed artifacts, padded model vocabularies and the
artifact's whole stop set the same way.  Nothing here is imported by ``indexc_runtime``
itself: a server that does not use a library never imports it (``pip install
'indexc[adapters]'`` for transformers; vLLM brings its own torch).

Code map, in reading order:

    transformers.py  IndexcLogitsProcessor: a ``transformers.LogitsProcessor`` for ``generate``
    vllm.py          IndexcLogitsProcessor (vLLM's per-request ``(token_ids, logits) -> logits``),
                     IndexcBackend / IndexcGrammar (the shape of vLLM's structured-output backend)
"""
