"""Shared by the make-target scripts (matrix.py, addmod113_study.py)."""


class Tee:
    """stdout that is also written to a file (the make targets keep a copy)."""

    def __init__(self, path, stream):
        self.f, self.stream = open(path, "w"), stream

    def write(self, s):
        self.stream.write(s)
        self.f.write(s)

    def flush(self):
        self.stream.flush()
        self.f.flush()
