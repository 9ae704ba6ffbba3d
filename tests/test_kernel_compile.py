# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""NVRTC compiles the kernel for every supported architecture, on CPU (no GPU needed).

A full compile takes about 25 s on a 2-core CPU, so each variant is compiled once per test session
(``compile``'s memo, or this file's for PTX) and only where it can differ: the .cu has one architecture
branch (``__CUDA_ARCH__ >= 900``), so every type pair is compiled for sm_75 and for sm_90 (one program per pair,
as the plugin builds it); every other architecture compiles the cheapest pair.
"""

from __future__ import annotations

import functools
import re
import shutil
import struct
from pathlib import Path

import pytest

import kernel_arrays
from kernels import cuda_calls, plan
from kernels import scatter_add as sak
from kernels.cuda_calls import KernelError

ARCHES = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120")
PAIRS = [(f, i) for f in plan.FLOATS for i in plan.INDICES]
CHEAPEST = {"float_type": "fp32", "index_type": "int32"}  # about 1.5 s to compile on CPU; fp16 takes 5.5 s


def entries(code: bytes) -> set[str]:
    return {name for name in sak.ENTRIES if name.encode() + b"\0" in code}


@functools.lru_cache(maxsize=None)
def ptx(arch: str, float_type: str, index_type: str) -> bytes:
    virtual = arch.replace("sm_", "compute_")
    return cuda_calls.nvrtc_compile(sak.KERNEL_SOURCE, virtual, sak.defines(float_type, index_type))


@pytest.mark.parametrize("arch", ["sm_75", "sm_90"])
@pytest.mark.parametrize("types", PAIRS, ids="-".join)
def test_each_pair_compiles_alone(arch: str, types: tuple[str, str]) -> None:
    code = sak.compile(float_type=types[0], index_type=types[1], arch=arch)
    assert code.cubin[:4] == b"\x7fELF" and (code.float_type, code.index_type, code.arch) == (*types, arch)
    assert entries(code.cubin) == set(sak.ENTRIES)


@pytest.mark.parametrize("arch", [a for a in ARCHES if a not in ("sm_75", "sm_90")])
def test_every_architecture_compiles(arch: str) -> None:
    code = sak.compile(**CHEAPEST, arch=arch).cubin
    assert code[:4] == b"\x7fELF" and entries(code) == set(sak.ENTRIES)


def static_shared_bytes(cubin: bytes, entry: str) -> int:
    """The size of the cubin's ``.nv.shared.ENTRY`` section: the entry's static shared memory, and
    from sm_90 on the 1 KiB a block that the driver keeps, which the test below then counts twice:
    on the safe side."""
    section_headers, = struct.unpack_from("<Q", cubin, 0x28)
    size, count, names = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", cubin, section_headers + k * size) for k in range(count)]
    table = headers[names][4]
    for name, _, _, _, _, length in headers:
        if cubin[table + name:cubin.index(b"\0", table + name)] == f".nv.shared.{entry}".encode():
            return length
    return 0


# MIN_BLOCKS blocks of the main kernels must fit in a multiprocessor's shared memory (with the 1 KiB
# the driver keeps a block), or the grid that plan sizes for them would queue: 100 KiB on sm_86,
# sm_89 and sm_120, 164 KiB on sm_80, 228 KiB on sm_90 and sm_100 (the CUDA programming guide's table).
# sm_75's 64 KiB holds two (v16: four at fp32, three at 16 bits): a cost to measure on a T4.
@pytest.mark.parametrize("arch, most", [("sm_80", 164), ("sm_86", 100), ("sm_89", 100), ("sm_90", 228),
                                        ("sm_100", 228), ("sm_120", 100)])
@pytest.mark.parametrize("float_type", ["fp32", "fp16"])
def test_min_blocks_fit_in_a_multiprocessors_shared_memory(arch: str, most: int, float_type: str) -> None:
    code = sak.compile(float_type=float_type, index_type="int32", arch=arch)
    for entry in ("scatter_add", "scatter_add_short_spans"):
        used = static_shared_bytes(code.cubin, entry)
        assert used > 0
        assert plan.MIN_BLOCKS * (used + 1024) <= most * 1024, (entry, used)


def test_compile_is_cached_per_arch_and_types() -> None:
    assert sak.compile(**CHEAPEST, arch="sm_90") is sak.compile(**CHEAPEST, arch="sm_90")


def test_a_cubin_runs_on_later_minor_versions_of_its_architecture_only() -> None:
    assert cuda_calls.cubin_runs_on("sm_86", "sm_89") and cuda_calls.cubin_runs_on("sm_90", "sm_90")
    assert cuda_calls.cubin_runs_on("sm_100", "sm_103") and cuda_calls.cubin_runs_on("sm_120", "sm_121")
    assert not cuda_calls.cubin_runs_on("sm_89", "sm_86") and not cuda_calls.cubin_runs_on("sm_80", "sm_90")
    assert not cuda_calls.cubin_runs_on("sm_90", "sm_100") and not cuda_calls.cubin_runs_on("sm_75", "sm_80")


def test_the_fingerprint_is_the_same_on_every_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Line endings (a Windows checkout) and where the CUDA headers are leave it as it is."""
    first = sak.fingerprint(**CHEAPEST)
    crlf = tmp_path / "scatter_add.cu"
    crlf.write_bytes(sak.KERNEL_SOURCE.read_bytes().replace(b"\n", b"\r\n"))
    monkeypatch.setattr(sak, "KERNEL_SOURCE", crlf)
    monkeypatch.setenv("CUDA_PATH", str(tmp_path))
    sak.fingerprint.cache_clear()
    try:
        assert sak.fingerprint(**CHEAPEST) == first
    finally:
        sak.fingerprint.cache_clear()


def test_the_fingerprint_follows_the_source_options_and_types(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the engine stores beside the cubin, for the creator to refuse a cubin today's code would misread."""
    first = sak.fingerprint(**CHEAPEST)
    assert re.fullmatch(r"[0-9a-f]{16}", first) and sak.compile(**CHEAPEST, arch="sm_90").fingerprint == first
    assert sak.fingerprint(float_type="fp16", index_type="int32") != first
    changed = tmp_path / "scatter_add.cu"
    changed.write_text(sak.KERNEL_SOURCE.read_text() + "// a later version\n")
    monkeypatch.setattr(sak, "KERNEL_SOURCE", changed)
    sak.fingerprint.cache_clear()
    try:
        with_source = sak.fingerprint(**CHEAPEST)
        monkeypatch.setattr(sak.plan, "BLOCK", 512)  # a -D option: a block size the stored kernel was not built for
        sak.fingerprint.cache_clear()
        with_block = sak.fingerprint(**CHEAPEST)
        monkeypatch.setattr(sak, "ARG_TYPES", sak.ARG_TYPES[:-1])  # an argument fewer
        sak.fingerprint.cache_clear()
        assert len({first, with_source, with_block, sak.fingerprint(**CHEAPEST)}) == 4
    finally:
        sak.fingerprint.cache_clear()


@pytest.mark.parametrize("float_type", ["fp16", "bf16"])
def test_vector_atomics_from_sm_90_only(float_type: str) -> None:
    """sm_90 adds a lane's 8 or 16 bytes of 16-bit values with one vector RED (v2/v4); below it, pairs (bf16: the
    compare-and-swap loop). An edit that lost the fast path would still be correct, only slower: this catches it."""
    pair = {"fp16": "f16x2", "bf16": "bf16x2"}[float_type]
    new, old = ptx("sm_90", float_type, "int32"), ptx("sm_80", float_type, "int32")
    for width in ("v2", "v4"):
        assert f"red.global.add.noftz.{width}.{pair}".encode() in new
        assert f".{width}.{pair}".encode() not in old


def test_compile_error_names_the_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "scatter_add.cu"
    broken.write_text(sak.KERNEL_SOURCE.read_text() + "\nthis is not C++;\n")
    with pytest.raises(KernelError) as caught:
        cuda_calls.nvrtc_compile(broken, "sm_90", sak.defines(**CHEAPEST))
    assert "scatter_add.cu(" in str(caught.value) and "sm_90" in str(caught.value)


def test_cuda_path_takes_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toolkit_include = tmp_path / "include"
    shutil.copytree(cuda_calls.find_cuda_include_dir(), toolkit_include)
    monkeypatch.setenv("CUDA_PATH", str(tmp_path))
    assert cuda_calls.find_cuda_include_dir() == str(toolkit_include)
    # and the kernel compiles against the headers found there
    assert cuda_calls.nvrtc_compile(sak.KERNEL_SOURCE, "sm_90", sak.defines(**CHEAPEST))[:4] == b"\x7fELF"


def test_feature_dtypes() -> None:
    assert kernel_arrays.float_type_of("uint16") == "bf16"
    with pytest.raises(ValueError, match="unsupported feature dtype"):
        kernel_arrays.float_type_of("float64")
