"""Strings: escapes in every spelling, lengths in characters, patterns on the decoded text, formats."""

from __future__ import annotations

import json

import pytest

from indexc.automaton import compile_regex
from indexc.jsonschema import lower_schema, schema_to_regex, strings
from indexc.jsonschema.to_grammar import schema_grammar
from tests.jsonschema.helpers import accepts, accepts_all_spellings


@pytest.mark.parametrize("value", ["plain", "é and ü", "tab\there", 'quote " and \\ backslash', "a/b", "😀 emoji", "\x00\x1f", ""])
def test_any_string_accepts_every_serialisation(value):
    assert accepts_all_spellings({"type": "string"}, value)


def test_invalid_string_texts_are_refused():
    for text in ('"\\x"', '"\n"', '"\\u12"', '"abc', "abc"):
        assert not accepts({"type": "string"}, text), text


def test_counted_characters_refuse_lone_surrogates_and_escaped_ascii():
    # an uncounted string takes any \uXXXX (valid JSON grammar); a counted one only real characters
    assert accepts({"type": "string"}, '"\\ud800"') and accepts({"type": "string"}, '"\\u0041"')
    counted = {"type": "string", "maxLength": 5}
    assert not accepts(counted, '"\\ud800"') and not accepts(counted, '"\\u0041"')


def test_length_counts_characters_not_spellings():
    schema = {"type": "string", "minLength": 2, "maxLength": 3}
    assert accepts_all_spellings(schema, "é😀")
    assert accepts_all_spellings(schema, "\n\t\"")
    assert not accepts(schema, json.dumps("a")) and not accepts(schema, json.dumps("abcd"))
    assert not accepts(schema, json.dumps("😀"))  # one character, two \u escapes


def test_pattern_is_a_search_on_the_decoded_string():
    schema = {"type": "string", "pattern": "b+c"}
    assert accepts(schema, '"abbcd"') and accepts(schema, '"bc"') and not accepts(schema, '"ac"')
    anchored = {"type": "string", "pattern": "^[a-z]{2}-\\d{3}$"}
    assert accepts(anchored, '"ab-123"') and not accepts(anchored, '"xab-123"') and not accepts(anchored, '"ab-12"')
    assert not accepts(anchored, '"ab-١٢٣"')  # ECMA \d is ASCII
    unicode = {"type": "string", "pattern": "^é+$"}
    assert accepts_all_spellings(unicode, "éé")
    quote = {"type": "string", "pattern": '^a"b$'}
    assert accepts(quote, '"a\\"b"') and accepts(quote, '"a\\u0022b"')


def test_pattern_alternatives_are_anchored_separately():
    schema = {"type": "string", "pattern": "^a$|b"}
    assert accepts(schema, '"a"') and accepts(schema, '"xbx"') and not accepts(schema, '"xa"')


def test_pattern_wrapped_in_a_group_keeps_its_anchors():
    schema = {"type": "string", "pattern": "(^[a-z().]+$)"}
    assert accepts(schema, '"a(b).c"') and not accepts(schema, '"a b"')


def test_length_beside_pattern_when_implied_or_foldable():
    assert accepts({"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3}, '"ABC"')
    folded = {"type": "string", "pattern": "^id-[a-z]+$", "minLength": 5, "maxLength": 6}
    assert accepts(folded, '"id-ab"') and accepts(folded, '"id-abc"')
    assert not accepts(folded, '"id-a"') and not accepts(folded, '"id-abcd"')
    duration = {"type": "string", "pattern": "^([0-9]+d)?([0-9]+h)?$", "minLength": 1}
    assert accepts(duration, '"1d"') and accepts(duration, '"2h"') and accepts(duration, '"1d2h"')
    assert not accepts(duration, '""')


@pytest.mark.parametrize("fmt, good, bad", [
    ("date", ["2024-02-29", "2000-02-29", "1999-12-31", "2023-04-30"],
     ["2024-13-01", "24-01-01", "2024-1-1", "2020-02-31", "2023-02-29", "1900-02-29", "2024-04-31"]),
    ("time", ["12:30:00Z", "23:59:60+02:00", "00:00:00.123z"], ["24:00:00Z", "12:30:00"]),
    ("date-time", ["2024-01-02T03:04:05Z", "2024-01-02t03:04:05.5-07:30"], ["2024-01-02 03:04:05Z", "2024-01-02T03:04Z"]),
    ("duration", ["P1Y2M3DT4H5M6S", "PT1S", "P3W", "P1D"], ["P", "PT", "P1H", "1D"]),
    ("email", ["a.b+c@example.com"], ["a@", "@b.com", "a b@c.com"]),
    ("hostname", ["example.com", "a-b.c"], ["-a.com", "a_b.com"]),
    ("ipv4", ["192.168.0.1", "0.0.0.0"], ["256.1.1.1", "1.2.3", "01.2.3.4"]),
    ("ipv6", ["::1", "2001:db8::ff00:42:8329", "::ffff:192.0.2.1"], ["1:2:3:4:5:6:7:8:9", "12345::"]),
    ("uuid", ["123e4567-e89b-12d3-a456-426614174000"], ["123e4567e89b12d3a456426614174000"]),
    ("uri", ["https://example.com/a?b=c#d", "urn:isbn:0451450523"], ["//no-scheme", "http://a b"]),
])
def test_formats(fmt, good, bad):
    schema = {"type": "string", "format": fmt}
    for value in good:
        assert accepts_all_spellings(schema, value), value
    for value in bad:
        assert not accepts(schema, json.dumps(value)), value


def test_date_has_each_months_days_and_leap_years_by_rfc_3339():
    """Every day string of years around the century rules against Python's calendar (MaskBench's
    invalid instances write "2020-02-31", which day-31-in-every-month accepted)."""
    import datetime

    dfa = compile_regex(schema_to_regex({"type": "string", "format": "date"}), max_states=50_000)
    for year in (1600, 1700, 1896, 1900, 1904, 1999, 2000, 2023, 2024, 2100, 2400, 9996):
        for month in range(1, 13):
            for day in range(0, 33):
                text = f"{year:04d}-{month:02d}-{day:02d}"
                try:
                    datetime.date(year, month, day)
                    valid = True
                except ValueError:
                    valid = False
                assert dfa.matches(json.dumps(text).encode()) == valid, text


def test_uri_accepts_escaped_slashes():
    assert accepts({"type": "string", "format": "uri"}, '"https:\\/\\/example.com\\/x"')


@pytest.mark.parametrize("low,high", [(0, 9), (1, 9), (4, 8), (5, 5), (0, 10), (7, 11), (3, None), (6, None), (0, None), (9, None)])
def test_long_counts_in_chunks_keep_the_exact_length_language(monkeypatch, low, high):
    # shrink the constants so a short bound already takes the chunked shape
    monkeypatch.setattr(strings, "LONG_STRING_CHARS", 2)
    monkeypatch.setattr(strings, "CHUNK_CHARS", 3)
    schema = {"type": "string", "minLength": low} | ({} if high is None else {"maxLength": high})
    dfa = compile_regex(schema_to_regex(schema), max_states=50_000)
    for length in range(0, 15):
        for text in (json.dumps("é" * length, ensure_ascii=False), json.dumps("a\n" * (length // 2) + "b" * (length % 2))):
            expected = low <= length and (high is None or length <= high)
            assert dfa.matches(text.encode()) == expected, (text, low, high)


def test_long_count_becomes_short_grammar_terminals():
    lowered = lower_schema({"type": "string", "minLength": 1, "maxLength": 32767})
    grammar = schema_grammar(lowered)
    longest = max(len(t.regex) for t in grammar.terminals.values())
    assert longest < 2000 and len(grammar.terminals) <= 5


def test_length_beside_a_pattern_it_does_not_imply_is_their_intersection():
    curie = {"type": "string", "pattern": "^([a-z0-9-]+):([a-z0-9\\.-]+):([a-z0-9-]+)?:([a-z0-9-]+)$", "maxLength": 12}
    assert accepts(curie, '"ab:c.d::e"') and accepts(curie, '"a:b:c:d"') and accepts(curie, '"aaa:bb:ccc:d"')
    assert not accepts(curie, '"aaaa:bb:ccc:d"')  # 13 characters
    assert not accepts(curie, '"a:b:c"') and not accepts(curie, '"A:b::c"')  # the pattern still holds
    words = {"type": "string", "pattern": "^(?:\\S+\\s+){0,2}\\S+$", "minLength": 4, "maxLength": 8}
    assert accepts(words, '"ab cd"') and accepts(words, '"abcd"') and accepts_all_spellings(words, "é\tü x")
    assert not accepts(words, '"abc"') and not accepts(words, '"a b c d e"') and not accepts(words, '"abcdefghi"')
    assert not accepts(words, '"a b c d"')  # 7 characters but four words


def test_length_beside_a_format_is_their_intersection():
    email = {"type": "string", "format": "email", "maxLength": 7}
    assert accepts(email, '"a@b.cd"') and not accepts(email, '"ab@cd.ef"') and not accepts(email, '"abcdefg"')


def test_pattern_beside_a_format_is_their_intersection():
    schema = {"type": "string", "format": "uri", "pattern": "\\.(gif|jpg)$"}
    assert accepts(schema, '"https://x.org/a.gif"') and accepts(schema, '"https:\\/\\/x.org\\/a.jpg"')
    assert not accepts(schema, '"https://x.org/a.png"')  # not the pattern
    assert not accepts(schema, '"not a uri.gif"')  # not the format


def test_contradicting_length_and_pattern_make_the_string_impossible():
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^[a-z]{5}$", "maxLength": 3}}}
    assert accepts(schema, '{}') and not accepts(schema, '{"a": "abcde"}')


def test_anchors_inside_a_group_around_an_alternative_are_distributed():
    empty_or_words = {"type": "string", "pattern": "^$|(^(?:\\S+\\s+){0,2}\\S+$)"}
    assert accepts(empty_or_words, '""') and accepts(empty_or_words, '"a b c"')
    assert not accepts(empty_or_words, '"a b c d"') and not accepts(empty_or_words, '" a"')
    no_leading_comma = {"type": "string", "pattern": "^([^,]|$)"}
    assert accepts(no_leading_comma, '""') and accepts(no_leading_comma, '"a,b"') and not accepts(no_leading_comma, '",a"')
    version = {"type": "string", "pattern": "^([0-9x]+\\.[0-9x]+$|\\%VERSION\\%)"}
    assert accepts(version, '"1.x"') and accepts(version, '"%VERSION%-rc"')
    assert not accepts(version, '"1.x-rc"') and not accepts(version, '"v%VERSION%"')
