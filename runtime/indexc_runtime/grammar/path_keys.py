"""Path keys: a lexeme-path row looked up by the language of the set it is scanned from (format 13).

**Why.**  A thread of a decomposed lexer state (``lexeme_paths``) decides its state's undecided
tokens by scanning the state's path trie from its origin: ~100 scans and ~30 new Earley sets the
first time a parser context is met.  lark.lark's slowest masks are exactly those (after
``start:``, after a rule body's first name, after a top-level newline): 1.0-1.5 ms of a mask
each, ~1.1 ms of it the path row's scans, on a host where llguidance's C p50 is ~355 µs (session
33).  A request meets such a context for the first time on its first document; the stored
parser memo (``stored_memo``) and the stored configurations' language keys (``languages``) only
help where the compile-time warm-up met the same configuration, and the warm-up's sampled
sentences rarely stop at the same byte with the same origin set.

**The key.**  A path row is a function of the set its paths are scanned from and of nothing
else (``StatePaths.held_pairs``: the pairs whose path scans from it and whose terminal the set
reached expects or ignores).  For a thread ``(O, t, q)`` every path starts with ``t`` and the root
holds no pair but of ``t`` itself, which ``O`` always expects (``PathRows.scanned_terminal``,
checked per state: every decomposed state of the bundled grammars), so the row is a function of
``E = scan(O, t)``; otherwise the key reads ``O``.  The key is ``q`` and that set's language digest
(``languages.SetLanguages`` with ``by_rest``: each item by the symbols after its dot with the digest
of the set its completion reaches, a Leo entry as the item it stands for, up the chain, no set id).
Two sets with one digest accept the same texts, so every scan of a path reaches sets expecting the
same terminals: one row, exact.  Keyed by ``E`` rather than ``O``, contexts that differ only before
``t`` share: lark.lark's ``start:`` (``O`` after a bare rule name) and a warm-up's ``a{b}:`` (``O``
after its parameters) scan ``":"`` into sets of one digest; by the items' rests, a Lark rule lowered
into several by its optional parts is one.

**What is stored** (``path_key_*``, format 13): the keys the compiler's warm-up texts meet at
every byte (``indexc.artifact.path_keys``), each with the state's groups it holds (packed bits,
little bit order, ``ceil(groups / 8)`` bytes a key), sorted by state then digest:

    path_key_state (n,)            decomposed lexer states
    path_key_digest (n, 16)        the digest of the set the state's paths are scanned from
    path_key_held_offsets (n+1,)   key k's bits: path_key_held[offsets[k]:offsets[k+1]]
    path_key_held (m,)             uint8, the state's groups in order, bit set: the group holds

**At serving time** (``PathRows``, one per parser memo): the walker asks ``held(state, origin)``
before it scans a decomposed thread's paths; a key found (stored, or computed earlier in this
memo) gives the held groups, no scan made.  Only states with a stored key are keyed: a digest
costs the sets up its chain (most made already), and states the warm-up never met rarely repeat.
Measured (session 33, thread time of fresh processes, three alternated runs; ``docs/grammar-path.md``):
lark.lark's mask after ``start:`` 1.33-1.88 -> 0.45-0.55 ms, its sample's walk 9.4-12.4 -> 5.7-7.5
ms.  Since session 34 the compiler also keys the states the origins it met expect (lark.lark: 1,024
keys, the budget; its mask after ``start: expr``, which no sampled sentence meets, 1,579 -> 600 us).

**Not done.**  A key is all or nothing: a set whose origin no warm-up text meets scans its paths,
and no part of a row is shared between two sets whose contexts differ far up their chains.  Bounds per
item (context dead / any FOLLOW continuation) left 161-180 of ~400 groups open on the slow masks,
and keys per path-trie node left half the scans, for 30 times the keys (analysed, not built).

**Checks.**  At load: states decomposed, keys strictly increasing (so distinct), offsets rising
from 0 by ``ceil(groups / 8)`` a key.  A key's padding bits are checked on its first use (and by
``verify``, every key).  That a stored row is the one its set gives is the compiler's walk (the
runtime's own ``held_groups``); ``verify`` cannot remake a set from its digest.
"""

from __future__ import annotations

import numpy as np

from indexc_runtime.container import Container
from indexc_runtime.errors import ArtifactError
from indexc_runtime.grammar.configs import Configs
from indexc_runtime.grammar.languages import KEY_BYTES, SetLanguages
from indexc_runtime.grammar.lexeme_paths import LexemePaths

PATH_KEY_SECTION_NAMES = ("path_key_state", "path_key_digest", "path_key_held_offsets", "path_key_held")
Key = tuple[int, bytes]  # lexer state, digest of the set its paths are scanned from
# rows a memo keeps under the keys it computed (a bool per group: lark.lark's largest state ~450 B,
# so ~2 MB at most); past it the oldest goes
MAX_COMPUTED_ROWS = 4096


class PathKeys:
    """The stored keys of one file: ``(state, digest)`` -> the state's held groups.

    Looked up by binary search in one sorted array of byte strings (the state big-endian, then
    the digest: byte order is key order; ``_key_strings``), not a dict: C's 776 keys cost ~1 ms of a load as a
    dict of tuples, which a server pays before its first mask."""

    def __init__(self, states: np.ndarray, digests: np.ndarray, offsets: np.ndarray, held: np.ndarray,
                 n_groups: np.ndarray, source: str = ""):
        """``n_groups``: per key, its state's number of groups."""
        self._offsets, self._held, self._n_groups, self._source = offsets, held, n_groups, source
        self._keys = _key_strings(states, digests)
        self.states = frozenset(states.tolist())
        self._decoded: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._keys)

    @classmethod
    def empty(cls) -> "PathKeys":
        arrays = empty_arrays()
        return cls(*(arrays[name] for name in PATH_KEY_SECTION_NAMES), np.zeros(0, dtype=np.int64))

    @classmethod
    def from_container(cls, c: Container, paths: LexemePaths) -> "PathKeys":
        """A format 13 file's keys, bounded (``_check``); none for an older file or none stored."""
        if c.header.format_version < 13 or not c.header.dims.get("n_path_keys"):
            return cls.empty()
        states, digests, offsets, held = (c.array(name) for name in PATH_KEY_SECTION_NAMES)
        offsets = offsets.astype(np.int64)
        n_groups = _check(states, digests, offsets, held, paths, c.source)
        return cls(states, digests, offsets, held, n_groups, c.source)

    def get(self, state: int, digest: bytes) -> np.ndarray | None:
        """The groups of ``state`` held from a set of ``digest`` (bool per group), or None."""
        probe = state.to_bytes(4, "big") + digest + b"\x01"
        k = int(np.searchsorted(self._keys, probe))
        if k == len(self._keys) or self._keys[k] != probe:
            return None
        found = self._decoded.get(k)
        if found is None:
            found = self._decoded[k] = self._decode(k)
        return found

    def _decode(self, k: int) -> np.ndarray:
        """Key ``k``'s bits as bools (its padding bits must be 0)."""
        n = int(self._n_groups[k])
        bits = np.unpackbits(self._held[int(self._offsets[k]):int(self._offsets[k + 1])], bitorder="little")
        if bits[n:].any():
            state = int.from_bytes(self._keys[k][:4], "big")
            raise ArtifactError(f"section 'path_key_held' sets a padding bit (lexer state {state})", source=self._source)
        return bits[:n].view(bool)

    def check_all(self) -> None:
        """Decode every key (``verify``: every padding bit)."""
        for k in range(len(self._keys)):
            self._decode(k)


def _key_strings(states: np.ndarray, digests: np.ndarray) -> np.ndarray:
    """Each key as bytes: the state big-endian, the digest and a 1 (an ``S21`` array, compared as
    bytes; numpy drops a string's trailing zero bytes, and a digest may end in one)."""
    columns = [states.astype(">u4").view(np.uint8).reshape(-1, 4), digests.reshape(-1, KEY_BYTES),
               np.ones((len(states), 1), dtype=np.uint8)]
    return np.ascontiguousarray(np.concatenate(columns, axis=1)).view(f"S{KEY_BYTES + 5}").ravel()


class PathRows:
    """One parser memo's held groups by key: the file's, and the ones its own scans computed."""

    def __init__(self, stored: PathKeys, paths: LexemePaths, configs: Configs, languages: SetLanguages,
                 state_terminal, states: frozenset[int] | None = None):
        """``state_terminal``: each lexer state's terminal; ``states``: the decomposed states to key
        (default: those with a stored key; the compiler keys every one)."""
        self._stored, self.paths, self._configs, self._languages = stored, paths, configs, languages
        self._state_terminal = state_terminal
        self.states = stored.states if states is None else states
        self._computed: dict[Key, np.ndarray] = {}
        self._scanned: dict[int, int | None] = {}  # state -> ``scanned_terminal``'s answer
        self.hits = 0  # rows found by key (stored or computed here): for the benchmarks and tests

    def key(self, state: int, origin: int) -> Key | None:
        """The key of a thread of ``state`` from Earley set ``origin`` (None: its set is not
        expected there, or its digest is over the languages' budget)."""
        root, first = origin, self.scanned_terminal(state)
        if first is not None:
            root = self._configs.sets.scan(origin, first)
            if root < 0:
                return None
        digest = self._languages.digest(root)
        return None if digest is None else (state, digest)

    def scanned_terminal(self, state: int) -> int | None:
        """The terminal whose scan from a thread's origin fixes ``state``'s row (None: the origin
        does): every path starts with it, and the root holds no pair but of the state's own
        terminal, which the origin always expects or ignores (a thread of a terminal starts only
        there, ``Configs.fresh``), so such a pair always holds."""
        if state not in self._scanned:
            paths = self.paths.of(state)
            own = frozenset((self._state_terminal[state],))
            self._scanned[state] = paths.first_terminal if paths.root_pairs <= own else None
        return self._scanned[state]

    def held(self, state: int, origin: int) -> np.ndarray:
        """``StatePaths.held_groups`` of a thread of ``state`` from ``origin``: by key where one is
        stored or was computed, else scanned (and kept under its key)."""
        key = self.key(state, origin) if state in self.states else None
        if key is not None:
            found = self._stored.get(*key)
            if found is None:
                found = self._computed.get(key)
            if found is not None:
                self.hits += 1
                return found
        found = self.paths.of(state).held_groups(origin, self._configs)
        if key is not None:
            self._computed[key] = found
            if len(self._computed) > MAX_COMPUTED_ROWS:  # the oldest out: a long-lived memo stays bounded
                del self._computed[next(iter(self._computed))]
        return found

    def computed(self) -> dict[Key, np.ndarray]:
        """The rows this memo scanned, by key (the compiler's table)."""
        return self._computed


def empty_arrays() -> dict[str, np.ndarray]:
    return {"path_key_state": np.zeros(0, dtype=np.int32),
            "path_key_digest": np.zeros((0, KEY_BYTES), dtype=np.uint8),
            "path_key_held_offsets": np.zeros(1, dtype=np.int64),
            "path_key_held": np.zeros(0, dtype=np.uint8)}


def sections_of(table: dict[Key, np.ndarray]) -> dict[str, np.ndarray]:
    """The ``path_key_*`` sections of ``table`` (key -> held groups as bools), sorted by key."""
    if not table:
        return empty_arrays()
    keys = sorted(table)
    packed = [np.packbits(table[key].astype(np.uint8), bitorder="little") for key in keys]
    return {"path_key_state": np.array([state for state, _ in keys], dtype=np.int32),
            "path_key_digest": np.frombuffer(b"".join(digest for _, digest in keys), dtype=np.uint8).reshape(-1, KEY_BYTES),
            "path_key_held_offsets": np.concatenate([[0], np.cumsum([p.size for p in packed])]).astype(np.int64),
            "path_key_held": np.concatenate(packed).astype(np.uint8)}


def _check(states: np.ndarray, digests: np.ndarray, offsets: np.ndarray, held: np.ndarray, paths: LexemePaths,
           source: str) -> np.ndarray:
    """The bounds of the sections (vectorised: a load pays them); each key's state's group count."""
    def require(ok: bool, section: str, what: str) -> None:
        if not ok:
            raise ArtifactError(f"section {section!r} {what}", source=source)

    n = len(states)
    require(digests.shape == (n, KEY_BYTES), "path_key_digest", f"is not {n} x {KEY_BYTES}")
    decomposed, group_offsets = paths.states_and_group_offsets()
    slot = np.searchsorted(decomposed, states)
    require(bool((slot < len(decomposed)).all()) and bool((decomposed[np.minimum(slot, len(decomposed) - 1)] == states).all()),
            "path_key_state", "names a state with no lexeme paths")
    keys = _key_strings(states, digests)
    require(bool((keys[1:] > keys[:-1]).all()), "path_key_state", "keys are not strictly increasing")
    n_groups = group_offsets[slot + 1] - group_offsets[slot]
    require(len(offsets) == n + 1 and offsets[0] == 0 and offsets[-1] == len(held)
            and bool((np.diff(offsets) == (n_groups + 7) // 8).all()),
            "path_key_held_offsets", "does not give each key ceil(groups / 8) bytes")
    return n_groups
