"""Process helpers shared by the index builder and the run history."""

from __future__ import annotations

import os


def pid_alive(pid: int | None) -> bool:
    """Whether a process with this id exists (PermissionError: it does, as another user's)."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
