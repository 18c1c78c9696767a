"""The three things that can go wrong when serving from an artifact, as typed exceptions.

- ``ArtifactError``: the file is not a valid artifact (truncated, corrupted, another format
  version, inconsistent sections).  It is the *only* exception a bad file raises: from
  ``load``, which checks every bound but those of the state table and of the masks, from the
  first use of a bad mask (each is checked when first read), from the first ``advance`` that
  reads a bad value of the state table (bounded where it is read) or finds a mask and a walk
  that disagree, or from ``Index.header`` for an informative header value tools could not
  print.  ``load(..., verify=True)`` checks everything up front.  It says which file, which
  section (when one is at fault) and what is wrong.
- ``FingerprintMismatch``: a valid artifact, built for another vocabulary.
- ``TokenNotAllowed``: a caller asked a matcher to advance on a token its mask excludes.

All three derive from ``ValueError`` (a bad value was handed in), so callers that only want
"something was wrong with the input" can catch that.
"""

from __future__ import annotations


class ArtifactError(ValueError):
    """An artifact file is malformed; ``source`` and ``section`` say where."""

    def __init__(self, message: str, *, source: str = "<bytes>", section: str | None = None):
        self.message = message
        self.source = source
        self.section = section
        where = f"{source}: section {section!r}: " if section else f"{source}: "
        super().__init__(where + message)


class FingerprintMismatch(ValueError):
    """The artifact was compiled for a different vocabulary than the one being served."""

    def __init__(self, artifact_fingerprint: str, expected_fingerprint: str, *, source: str = "<bytes>"):
        self.artifact_fingerprint = artifact_fingerprint
        self.expected_fingerprint = expected_fingerprint
        self.source = source
        super().__init__(
            f"{source}: artifact built for vocabulary fingerprint {artifact_fingerprint}, "
            f"but the tokenizer being served has fingerprint {expected_fingerprint}; "
            "its masks would allow the wrong tokens (recompile the artifact for this tokenizer)"
        )


class TokenNotAllowed(ValueError):
    """``Matcher.advance`` was given a token that the current mask does not allow."""

    def __init__(self, token_id: int, state: int, reason: str):
        self.token_id = token_id
        self.state = state
        self.reason = reason
        super().__init__(f"token {token_id} is not allowed in state {state}: {reason}")
