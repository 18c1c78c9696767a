"""Where the limits tests find the bundled data (never ``../shared``)."""

from pathlib import Path

TOKENIZERS = Path(__file__).resolve().parents[1] / "data" / "tokenizers"
