# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""NVRTC compiles the kernel for every supported architecture, on CPU (no GPU needed).

A full compile takes about 25 s on a 2-core CPU, so each variant is compiled once per test session
(``compile_kernel``'s memo, or this file's for whole programs) and only where it can differ: the .cu has
one architecture branch (``__CUDA_ARCH__ >= 900``), so every type pair is compiled for sm_75 (all pairs in
one program) and for sm_90 (one pair per program, as the plugin builds it at build time); every other
architecture compiles the cheapest pair. Each compile gives the cubin and the PTX the engine stores.
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest

import kernel_arrays
from scatter_add_plugin import compiler, plan
from scatter_add_plugin.kernel import KernelError

ARCHES = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120")
PAIRS = [(f, i) for f in plan.FLOATS for i in plan.INDICES]
CHEAPEST = ("fp32", "int32")  # about 1.5 s to compile on CPU; fp16 takes 5.5 s


def cubin(arch: str, pairs: tuple[tuple[str, str], ...]) -> bytes:
    """The cubin of one program holding these pairs' entries; one pair is the plugin's own compile."""
    return compiler.compile_kernel(arch, *pairs[0]).cubin if len(pairs) == 1 else program(arch, pairs)


@functools.lru_cache(maxsize=None)
def program(arch: str, pairs: tuple[tuple[str, str], ...]) -> bytes:
    options = compiler.compile_options(arch, compiler.find_cuda_include_dir(), pairs)
    return compiler.nvrtc_compile(compiler.KERNEL_SOURCE, arch, options)[0]


def entries(code: bytes) -> set[str]:
    return {name for f, i in PAIRS for fixup in (False, True)
            if (name := plan.kernel_name(f, i, fixup)).encode() + b"\0" in code}


def test_every_pair_compiles_in_one_program_below_sm_90() -> None:
    code = cubin("sm_75", tuple(PAIRS))
    assert code[:4] == b"\x7fELF"
    assert entries(code) == {plan.kernel_name(f, i, fixup) for f, i in PAIRS for fixup in (False, True)}


@pytest.mark.parametrize("types", PAIRS, ids="-".join)
def test_each_pair_compiles_alone_for_sm_90(types: tuple[str, str]) -> None:
    code = cubin("sm_90", (types,))
    assert code[:4] == b"\x7fELF"
    assert entries(code) == {plan.kernel_name(*types), plan.kernel_name(*types, fixup=True)}


@pytest.mark.parametrize("arch", [a for a in ARCHES if a not in ("sm_75", "sm_90")])
def test_every_architecture_compiles(arch: str) -> None:
    code = cubin(arch, (CHEAPEST,))
    assert code[:4] == b"\x7fELF"
    assert entries(code) == {plan.kernel_name(*CHEAPEST), plan.kernel_name(*CHEAPEST, fixup=True)}


def test_compile_is_cached_per_arch_and_types() -> None:
    assert compiler.compile_kernel("sm_90", *CHEAPEST) is compiler.compile_kernel("sm_90", *CHEAPEST)


def test_the_plugin_gets_the_cubin_and_ptx_of_its_pair() -> None:
    """What the engine stores: a cubin for the build GPU, and PTX holding the same two entries for a newer one."""
    code = compiler.compile_kernel("sm_90", *CHEAPEST)
    assert (code.float_type, code.index_type, code.arch) == (*CHEAPEST, "sm_90")
    assert code.cubin[:4] == b"\x7fELF" and b".target sm_90" in code.ptx and not code.ptx.endswith(b"\0")
    for name in (plan.kernel_name(*CHEAPEST), plan.kernel_name(*CHEAPEST, fixup=True)):
        assert f".entry {name}(".encode() in code.ptx


@pytest.mark.parametrize("float_type", ["fp16", "bf16"])
def test_vector_atomics_from_sm_90_only(float_type: str) -> None:
    """sm_90 adds a lane's 8 or 16 bytes of 16-bit values with one vector RED (v2/v4); below it, pairs (bf16: the
    compare-and-swap loop). An edit that lost the fast path would still be correct, only slower: this catches it."""
    pair = {"fp16": "f16x2", "bf16": "bf16x2"}[float_type]
    new = compiler.compile_kernel("sm_90", float_type, "int32").ptx
    old = compiler.compile_kernel("sm_80", float_type, "int32").ptx
    for width in ("v2", "v4"):
        assert f"red.global.add.noftz.{width}.{pair}".encode() in new
        assert f".{width}.{pair}".encode() not in old


def test_compile_error_names_the_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "scatter_add.cu"
    broken.write_text(compiler.KERNEL_SOURCE.read_text() + "\nthis is not C++;\n")
    options = compiler.compile_options("sm_90", compiler.find_cuda_include_dir(), [CHEAPEST])
    with pytest.raises(KernelError) as caught:
        compiler.nvrtc_compile(broken, "sm_90", options)
    assert "scatter_add.cu(" in str(caught.value) and "sm_90" in str(caught.value)


def test_cuda_path_takes_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toolkit_include = tmp_path / "include"
    shutil.copytree(compiler.find_cuda_include_dir(), toolkit_include)
    monkeypatch.setenv("CUDA_PATH", str(tmp_path))
    assert compiler.find_cuda_include_dir() == str(toolkit_include)
    # and the kernel compiles against the headers found there
    options = compiler.compile_options("sm_90", str(toolkit_include), [CHEAPEST])
    assert compiler.nvrtc_compile(compiler.KERNEL_SOURCE, "sm_90", options)[0][:4] == b"\x7fELF"


def test_kernel_names_and_validation() -> None:
    assert plan.kernel_name("bf16", "int64") == "scatter_add_bf16_i64"
    with pytest.raises(ValueError):
        plan.kernel_name("fp64", "int32")
    assert kernel_arrays.float_type_of("uint16") == "bf16"
    with pytest.raises(ValueError, match="unsupported feature dtype"):
        kernel_arrays.float_type_of("float64")
