"""The schema document: JSON text -> Python objects, and ``$ref`` -> the node it points to.

Only references inside the document are followed: ``#`` (the root), JSON pointers
``#/definitions/x`` / ``#/$defs/x`` / ``#/properties/a/items`` (RFC 6901 escapes and URI
percent-escapes decoded), plain-name anchors ``#name`` declared with ``$anchor`` or a
draft-4/6 ``id: "#name"``, and references that repeat the root's own ``$id``/``id`` before
the fragment.  Anything else (another file, a URL) is refused with the pointer of the
``$ref``: fetching is out of scope for an ahead-of-time compiler that must be reproducible.
"""

from __future__ import annotations

import json
from urllib.parse import unquote

from indexc.jsonschema.errors import JsonSchemaError, child_pointer


def parse_schema_text(text: str, *, source: str = "<schema>") -> object:
    """JSON text -> object; invalid JSON is a ``JsonSchemaError`` with line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise JsonSchemaError(
            f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}", source=source
        ) from None


class SchemaDocument:
    """The root schema and the lookups ``$ref`` needs."""

    def __init__(self, root: object, *, source: str = "<schema>"):
        if not isinstance(root, (dict, bool)):
            raise JsonSchemaError(f"a schema must be an object or a boolean, not {type(root).__name__}",
                                  pointer="#", source=source)
        self.root = root
        self.source = source
        self.base_ids = _root_ids(root)
        self.anchors = _collect_anchors(root)

    def resolve(self, ref: object, *, pointer: str) -> tuple[str, object]:
        """(pointer of the target, target node) for the ``$ref`` found at ``pointer``."""
        if not isinstance(ref, str):
            raise self.error("$ref must be a string", pointer)
        base, hash_mark, fragment = ref.partition("#")
        if base and base not in self.base_ids:
            raise self.error(f"$ref {ref!r} points outside the document (only local references are supported)", pointer)
        if not hash_mark or fragment == "":
            return "#", self.root
        fragment = unquote(fragment)
        if not fragment.startswith("/"):
            if fragment in self.anchors:
                return self.anchors[fragment]
            raise self.error(f"$ref {ref!r}: no anchor {fragment!r} in the document", pointer)
        node: object = self.root
        target = "#"
        for raw in fragment[1:].split("/"):
            part = raw.replace("~1", "/").replace("~0", "~")
            target = child_pointer(target, part)
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise self.error(f"$ref {ref!r} points nowhere (no {target})", pointer)
        return target, node

    def error(self, message: str, pointer: str) -> JsonSchemaError:
        return JsonSchemaError(message, pointer=pointer, source=self.source)


def _root_ids(root: object) -> set[str]:
    ids = set()
    if isinstance(root, dict):
        for key in ("$id", "id"):
            value = root.get(key)
            if isinstance(value, str) and value:
                ids.add(value.partition("#")[0])
    return ids


def _collect_anchors(root: object) -> dict[str, tuple[str, object]]:
    anchors: dict[str, tuple[str, object]] = {}
    stack: list[tuple[str, object]] = [("#", root)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, dict):
            anchor = node.get("$anchor")
            if isinstance(anchor, str):
                anchors.setdefault(anchor, (pointer, node))
            legacy = node.get("id")
            if isinstance(legacy, str) and legacy.startswith("#") and len(legacy) > 1:
                anchors.setdefault(legacy[1:], (pointer, node))
            for key, value in node.items():
                if key not in ("enum", "const", "default", "examples"):
                    stack.append((child_pointer(pointer, key), value))
        elif isinstance(node, list):
            stack.extend((child_pointer(pointer, i), v) for i, v in enumerate(node))
    return anchors
