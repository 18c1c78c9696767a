"""indexc_runtime: serve token masks from an indexc artifact (numpy, msgpack, zstandard only)."""
