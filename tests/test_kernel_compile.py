"""NVRTC compiles the kernel for every supported architecture, on CPU (no GPU needed).

A full compile takes about 25 s on a 2-core CPU, so each variant is compiled once per test session
(compile_cubin's memo, shared with the cache tests through the same arguments) and only where it can
differ: the .cu has one architecture branch (``__CUDA_ARCH__ >= 900``), so every type pair is compiled
for sm_75 (all pairs in one program, as the QDP route and the benchmarks build it) and for sm_90 (one
pair per program, as the launcher builds it); every other architecture compiles the cheapest pair.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernels import launcher as sak
from kernels import plan
import kernel_arrays

ARCHES = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120")
PAIRS = list(sak.ALL_PAIRS)
CHEAPEST = ("fp32", "int32")  # about 1.5 s to compile on CPU; fp16 takes 5.5 s


def cubin(arch: str, pairs: tuple[tuple[str, str], ...]) -> bytes:
    """Positional, as cubin_for calls it, so that both share compile_cubin's memo."""
    return sak.compile_cubin(sak.KERNEL_SOURCE.read_text(), arch, sak.find_cuda_include_dir(), pairs)


def entries(code: bytes) -> set[str]:
    return {name for f, i in PAIRS for fixup in (False, True)
            if (name := plan.kernel_name(f, i, fixup)).encode() + b"\0" in code}


def test_every_pair_compiles_in_one_program_below_sm_90() -> None:
    code = cubin("sm_75", sak.ALL_PAIRS)
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


def test_compile_is_cached_per_source_and_arch() -> None:
    assert cubin("sm_90", (CHEAPEST,)) is cubin("sm_90", (CHEAPEST,))


def test_compile_error_names_the_file_and_line() -> None:
    broken = sak.KERNEL_SOURCE.read_text() + "\nthis is not C++;\n"
    with pytest.raises(sak.KernelError) as caught:
        sak.compile_cubin(broken, "sm_90", sak.find_cuda_include_dir(), (CHEAPEST,))
    assert "scatter_add.cu(" in str(caught.value) and "sm_90" in str(caught.value)


def test_cuda_path_takes_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toolkit_include = tmp_path / "include"
    shutil.copytree(sak.find_cuda_include_dir(), toolkit_include)
    monkeypatch.setenv("CUDA_PATH", str(tmp_path))
    assert sak.find_cuda_include_dir() == str(toolkit_include)
    # and the kernel compiles against the headers found there
    assert sak.compile_cubin(sak.KERNEL_SOURCE.read_text(), "sm_90", str(toolkit_include), (CHEAPEST,))[:4] == b"\x7fELF"


def test_kernel_names_and_validation() -> None:
    assert plan.kernel_name("bf16", "int64") == "scatter_add_bf16_i64"
    with pytest.raises(ValueError):
        plan.kernel_name("fp64", "int32")
    assert kernel_arrays.float_type_of("uint16") == "bf16"
    with pytest.raises(ValueError, match="unsupported feature dtype"):
        kernel_arrays.float_type_of("float64")
