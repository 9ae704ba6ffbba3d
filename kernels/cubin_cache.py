"""An on-disk cache of compiled kernels: only the first run on a machine pays for NVRTC.

Where: ``$SCATTER_ADD_KERNEL_CACHE`` if set (empty: no cache), else ``$XDG_CACHE_HOME/aliased_io_plugin``,
else ``~/.cache/aliased_io_plugin``. The key is a SHA-256 of everything that changes the machine code
(source, architecture, options, included headers, NVRTC version). An entry is a magic tag, the cubin's
SHA-256, then the cubin, written to a temporary file and renamed into place (atomic: a concurrent run sees
the old entry, the new one or none). A damaged entry is treated as missing, and any OS error (read-only or
missing home, full disk) falls back to compiling: the cache is only a speed-up.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

ENV_VAR = "SCATTER_ADD_KERNEL_CACHE"
_MAGIC = b"SCATTERADD-CUBIN-1\n"


def cache_dir() -> Path | None:
    """The cache directory (not created yet), or None when the user turned the cache off."""
    override = os.environ.get(ENV_VAR)
    if override is not None:
        return Path(override).expanduser() if override else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "aliased_io_plugin"


def cache_key(source: str, arch: str, options: Sequence[str], headers: Mapping[str, bytes],
              nvrtc_version: tuple[int, int]) -> str:
    """Hex digest of every input that changes the compiled kernel."""
    digest = hashlib.sha256()
    parts = [source.encode(), arch.encode(), repr(tuple(options)).encode(), repr(nvrtc_version).encode()]
    for part in parts + [b for name in sorted(headers) for b in (name.encode(), headers[name])]:
        digest.update(len(part).to_bytes(8, "little") + part)  # length-prefixed: no two inputs hash alike
    return digest.hexdigest()


def load(directory: Path | None, key: str) -> bytes | None:
    """The cached cubin for ``key``, or None if absent, unreadable or corrupt."""
    if directory is None:
        return None
    try:
        blob = (directory / f"{key}.cubin").read_bytes()
    except OSError:
        return None
    header = len(_MAGIC) + 32  # the tag, then the cubin's SHA-256
    digest, cubin = blob[len(_MAGIC):header], blob[header:]
    return cubin if blob.startswith(_MAGIC) and cubin and hashlib.sha256(cubin).digest() == digest else None


def store(directory: Path | None, key: str, cubin: bytes) -> bool:
    """Write the entry atomically; False (and no exception) when the cache cannot be written."""
    if directory is None:
        return False
    temporary = None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{key}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as file:
            file.write(_MAGIC + hashlib.sha256(cubin).digest() + cubin)
        os.replace(temporary, directory / f"{key}.cubin")
        return True
    except OSError:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        return False
