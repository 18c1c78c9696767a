"""Tokens as a person reads them: kind names and an unambiguous printable form of bytes.

The printable form decodes what is valid UTF-8 and escapes the rest, so ``b" caf\\xc3\\xa9"``
shows as `` café`` and a partial sequence ``b"\\xe4\\xbd"`` as ``\\xe4\\xbd``.  Escapes are
``\\n``, ``\\r``, ``\\t``, ``\\\\``, ``\\xNN`` for other ASCII controls and for undecodable
bytes (always 0x80 and up), ``\\uNNNN`` for C1 controls, so distinct byte strings never print
the same.
"""

from __future__ import annotations

from indexc.vocab.model import TokenKind

KIND_NAMES = {kind: kind.name.lower() for kind in TokenKind}

_NAMED_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_table() -> dict[int, str]:
    table = {ord(char): escape for char, escape in _NAMED_ESCAPES.items()}
    for code in [*range(0x20), 0x7F]:
        table.setdefault(code, f"\\x{code:02x}")
    for code in range(0x80, 0xA0):  # C1 controls: \u, since \x80..\xff name undecodable bytes
        table[code] = f"\\u{code:04x}"
    # surrogateescape turns an undecodable byte b into U+DC00 + b.
    table.update({0xDC00 + byte: f"\\x{byte:02x}" for byte in range(0x80, 0x100)})
    return table


ESCAPES = _escape_table()


def printable(data: bytes) -> str:
    """``data`` as text with every non-printable or undecodable byte escaped."""
    return data.decode("utf-8", "surrogateescape").translate(ESCAPES)


def kind_name(kind: int) -> str:
    """``"normal"``, ``"byte"``, ``"user"``, ``"special"`` or ``"hole"``."""
    return KIND_NAMES[TokenKind(kind)]
