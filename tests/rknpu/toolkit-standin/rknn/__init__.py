# Stand-in for RKNN-Toolkit2's `rknn` package, for tests only (never shipped): see api.py.
