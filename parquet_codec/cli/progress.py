"""A progress bar for long work, drawn on stderr only when it is a terminal.

Piped or redirected output stays clean: when stderr is not a TTY (or
``--no-progress`` is given) every method is a no-op.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

_REFRESH_SECONDS = 0.1
_BAR_WIDTH = 30


class Progress:
    """Counts work done out of ``total`` units and redraws one line on stderr."""

    def __init__(self, total: int, label: str = "", *, enabled: bool | None = None,
                 stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = max(int(total), 0)
        self.label = label
        self.done = 0
        self._last_draw = 0.0
        self._drawn = False
        self.enabled = _is_terminal(self.stream) if enabled is None else enabled

    def set_label(self, label: str) -> None:
        self.label = label
        self._draw(force=False)

    def advance(self, units: int = 1) -> None:
        self.done = min(self.total, self.done + units) if self.total else self.done + units
        self._draw(force=self.done == self.total)

    def _draw(self, *, force: bool) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < _REFRESH_SECONDS:
            return
        self._last_draw = now
        self.stream.write("\r" + self._line()[: _columns() - 1] + "\x1b[K")
        self.stream.flush()
        self._drawn = True

    def _line(self) -> str:
        if not self.total:
            return f"{self.label} {self.done}"
        fraction = self.done / self.total
        filled = int(fraction * _BAR_WIDTH)
        bar = "#" * filled + "." * (_BAR_WIDTH - filled)
        return f"[{bar}] {fraction:4.0%} {self.done}/{self.total} {self.label}"

    def close(self) -> None:
        """Erase the bar so that later output starts on a clean line."""
        if self.enabled and self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
        self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _columns() -> int:
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80


__all__ = ["Progress"]
