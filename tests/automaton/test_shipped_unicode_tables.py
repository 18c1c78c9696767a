"""The shipped ``\\d \\s \\w`` ranges equal a fresh derivation from this interpreter's unicodedata."""

from __future__ import annotations

import numpy as np
import pytest

from indexc.automaton import unicode_classes


def test_a_table_is_shipped_for_this_unicode_version():
    assert unicode_classes.SHIPPED_TABLES.is_file(), (
        "run `python -m indexc.automaton.unicode_classes` to ship the tables of this Unicode version")


@pytest.mark.parametrize("letter", "dsw")
def test_shipped_table_equals_derivation(letter):
    shipped = unicode_classes._shipped_tables()[letter]
    assert np.array_equal(shipped, unicode_classes.derive_class_escape_set(letter).ranges)
    assert unicode_classes.class_escape_set(letter) == unicode_classes.derive_class_escape_set(letter)
