"""The driver's line about the plugin's kernel: compiled by NVRTC or read from the disk cache, and how long
it took. Only the CLI needs it; the plugin itself calls ``launcher.get_kernel``."""

from __future__ import annotations

import time
from pathlib import Path

from kernels import cubin_cache, launcher


class HeadersNotFound(launcher.KernelError):
    """NVRTC needs cuda_fp16.h / cuda_bf16.h and none were found: a package is missing."""


def prepare(float_type: str, index_type: str) -> str:
    """Load the type pair's kernels into the current context now, and say how the cubin was obtained (not
    counting the context's own creation, which any GPU program pays)."""
    try:
        launcher.find_cuda_include_dir()
    except launcher.KernelError as missing:
        raise HeadersNotFound(str(missing)) from None
    _, device = launcher.current_context()
    start = time.perf_counter()
    launcher.get_kernel(float_type, index_type)
    seconds, arch = time.perf_counter() - start, launcher.device_arch(device)
    return describe(arch, seconds, launcher.cubin_for(arch, (float_type, index_type)), cubin_cache.cache_dir())


def describe(arch: str, seconds: float, cubin: launcher.Cubin, cache: Path | None) -> str:
    """One line: where the cubin came from (``cache``: the cache directory, None when it is turned off)."""
    if cubin.from_cache:
        return f"Kernel: loaded for {arch} from the cache {cache} in {seconds * 1e3:.0f} ms"
    where = (f"cached in {cache}" if cubin.stored else f"{cubin_cache.ENV_VAR} is empty: not cached"
             if cache is None else f"could not write the cache {cache}")
    return f"Kernel: compiled {launcher.KERNEL_SOURCE.name} for {arch} with NVRTC in {seconds:.1f} s ({where})"
