"""Random small regexes for the property tests: atoms combined by concatenation, alternation,
``* + ?`` and bounded repeats (one grammar, so every property test draws from the same shapes)."""

from __future__ import annotations

from hypothesis import strategies as st


def regexes(atoms: list[str], *, max_repeat: int, max_leaves: int) -> st.SearchStrategy[str]:
    def extend(inner):
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map(lambda p: f"({p[0]}|{p[1]})"),
            inner.map(lambda p: f"({p})*"),
            inner.map(lambda p: f"({p})+"),
            inner.map(lambda p: f"({p})?"),
            st.tuples(inner, st.integers(0, max_repeat), st.integers(0, max_repeat)).map(
                lambda p: f"({p[0]}){{{min(p[1], p[2])},{max(p[1], p[2])}}}"),
        )
    return st.recursive(st.sampled_from(atoms), extend, max_leaves=max_leaves)
