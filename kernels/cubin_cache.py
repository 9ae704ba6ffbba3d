"""An on-disk cache of compiled kernels, so that only the first run on a machine pays for NVRTC.

Where: ``$SCATTER_ADD_KERNEL_CACHE`` if it is set (set it to an empty string to turn the cache
off), else ``$XDG_CACHE_HOME/aliased_io_plugin``, else ``~/.cache/aliased_io_plugin``.

Key: a SHA-256 over everything that changes the machine code: the kernel source, the NVRTC
version, the target architecture, the compiler options and the bytes of the headers it
includes. Edit any of them and the next run compiles again.

Entries: ``<key>.cubin`` holds a magic tag, the SHA-256 of the cubin, then the cubin. It is
written to a temporary file in the same directory and renamed into place, which is atomic, so
a concurrent run sees the old entry, the new one or none, never half a file. An entry that
cannot be read or fails its digest is treated as missing: the kernel is compiled again and the
entry replaced. The cache is only a speed-up: any OS error while using it (no home directory,
read-only file system, full disk) silently falls back to compiling.

Why not ``cuda.core``'s ``FileStreamProgramCache``: it needs cuda-core >= 1.2 (newer than many
CUDA 12 installs), the sample otherwise uses only ``cuda.bindings``, and it still leaves the
header digest to the caller; the whole cache here is these few functions.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

ENV_VAR = "SCATTER_ADD_KERNEL_CACHE"
_MAGIC = b"SCATTERADD-CUBIN-1\n"
_DIGEST_BYTES = 32


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
    for name in sorted(headers):
        parts += [name.encode(), headers[name]]
    for part in parts:  # length-prefixed, so no two different inputs hash the same byte stream
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()


def load(directory: Path | None, key: str) -> bytes | None:
    """The cached cubin for ``key``, or None if absent, unreadable or corrupt."""
    if directory is None:
        return None
    try:
        blob = (directory / f"{key}.cubin").read_bytes()
    except OSError:
        return None
    header = len(_MAGIC) + _DIGEST_BYTES
    if not blob.startswith(_MAGIC) or len(blob) <= header:
        return None
    digest, cubin = blob[len(_MAGIC):header], blob[header:]
    return cubin if hashlib.sha256(cubin).digest() == digest else None


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
            try:
                os.unlink(temporary)
            except OSError:
                pass
        return False
