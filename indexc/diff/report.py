"""A diff for people (a short report a reviewer reads) and for machines (one JSON object).

Texts are shown with ``printable`` (valid UTF-8 decoded, everything else escaped) inside
quotes, so a witness of a space or an empty witness is visible; tokens are ``id 'text'``, or
bare ids when the vocabulary was not available.
"""

from __future__ import annotations

from dataclasses import asdict

from indexc.diff.builds import BuildDiff
from indexc.diff.compare import ArtifactDiff, PairDiff
from indexc.vocab.display import printable


def artifact_text(diff: ArtifactDiff) -> str:
    lines = [f"A: {diff.path_a}  ({_constraint(diff.constraint_a)})",
             f"B: {diff.path_b}  ({_constraint(diff.constraint_b)})"]
    if diff.same_vocabulary:
        lines.append(f"same vocabulary (fingerprint {diff.fingerprint_a[:16]})")
    else:
        lines.append(f"different vocabularies (A {diff.fingerprint_a[:16]}, B {diff.fingerprint_b[:16]}): "
                     f"compared by token bytes; {diff.n_vocab_only_a} token(s) only in A, "
                     f"{diff.n_vocab_only_b} only in B")
        lines += _token_list("  only in A's vocabulary:", diff.vocab_only_a, diff.n_vocab_only_a)
        lines += _token_list("  only in B's vocabulary:", diff.vocab_only_b, diff.n_vocab_only_b)
    if diff.identical:
        if diff.complete:
            lines.append(f"identical masks in all {diff.reachable_pairs} reachable state pairs")
        else:
            lines.append(f"identical masks in the {diff.reachable_pairs} state pairs compared")
            lines.append(_bound_line(diff))
        return "\n".join(lines)
    compared = "reachable" if diff.complete else "compared"
    lines.append(f"{diff.differing_pairs} of {diff.reachable_pairs} {compared} state pairs differ; "
                 f"{diff.tokens_only_a} token entries only A allows, {diff.tokens_only_b} only B allows")
    if not diff.complete:
        lines.append(_bound_line(diff))
    if diff.accepted_witness is not None:
        other = "B" if diff.accepted_only_by == "A" else "A"
        lines.append(f"shortest text accepted by {diff.accepted_only_by} and not by {other}: "
                     f"{_quoted(diff.accepted_witness)}")
    else:
        lines.append("both accept the same texts" + ("" if diff.complete else " among those compared"))
    for pair in diff.pairs:
        lines += _pair_lines(pair)
    if diff.differing_pairs > len(diff.pairs):
        lines.append(f"... {diff.differing_pairs - len(diff.pairs)} more state pair(s) (raise --limit)")
    return "\n".join(lines)


def build_text(diff: BuildDiff) -> str:
    lines = [f"old: {diff.old}", f"new: {diff.new}",
             f"{len(diff.changed)} changed, {len(diff.appeared)} appeared, {len(diff.disappeared)} disappeared, "
             f"{diff.unchanged} unchanged"]
    lines += [f"+ {artifact}" for artifact in diff.appeared]
    lines += [f"- {artifact}" for artifact in diff.disappeared]
    for change in diff.changed:
        if change.diff is None:
            lines.append(f"~ {change.artifact}: not compared: {change.reason}")
        elif change.diff.identical:
            diff = change.diff
            bounded = "" if diff.complete else f" in the {diff.reachable_pairs} state pairs compared (bounded)"
            lines.append(f"~ {change.artifact}: file changed, masks identical{bounded}")
        else:
            lines.append(f"~ {change.artifact}:")
            lines += ["    " + line for line in artifact_text(change.diff).splitlines()[2:]]
    return "\n".join(lines)


def artifact_json(diff: ArtifactDiff) -> dict:
    document = asdict(diff)
    document["identical"] = diff.identical
    document["accepted_witness"] = _text_or_none(diff.accepted_witness)
    for pair in document["pairs"]:
        pair["witness"] = printable(pair["witness"])
    return document


def build_json(diff: BuildDiff) -> dict:
    return {
        "old": diff.old, "new": diff.new, "identical": diff.identical, "unchanged": diff.unchanged,
        "appeared": diff.appeared, "disappeared": diff.disappeared,
        "changed": [{"artifact": c.artifact, "reason": c.reason,
                     "diff": None if c.diff is None else artifact_json(c.diff)} for c in diff.changed],
    }


def _bound_line(diff: ArtifactDiff) -> str:
    return (f"bounded: the search stopped after {diff.max_pairs} pairs (--max-pairs) and the given texts' "
            "prefixes; a grammar artifact's state pairs may be endless, so longer texts were not compared")


def _pair_lines(pair: PairDiff) -> list[str]:
    where = f"states A {_state(pair.state_a)}, B {_state(pair.state_b)}"
    lines = [f"after {_quoted(pair.witness)} ({where}): {pair.n_only_a} only A allows, {pair.n_only_b} only B allows"]
    lines += _token_list("  only A:", pair.only_a, pair.n_only_a)
    lines += _token_list("  only B:", pair.only_b, pair.n_only_b)
    return lines


def _token_list(title: str, labels: list[str], total: int) -> list[str]:
    if not total:
        return []
    more = f", ... {total - len(labels)} more" if total > len(labels) else ""
    return [f"{title} {', '.join(labels)}{more}"]


def _quoted(text: bytes) -> str:
    return f"'{printable(text)}'"


def _text_or_none(text: bytes | None) -> str | None:
    return None if text is None else printable(text)


def _state(state: int | None) -> str:
    return "dead" if state is None else str(state)


def _constraint(constraint: dict) -> str:
    return f"{constraint.get('kind')}, {constraint.get('path')}, sha256 {str(constraint.get('sha256'))[:12]}"
