"""NVRTC compiles every kernel variant for every supported architecture, on CPU (no GPU needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernels import launcher as sak
import kernel_arrays

ARCHES = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120")


@pytest.mark.parametrize("arch", ARCHES)
def test_every_variant_compiles(arch: str) -> None:
    cubin = sak.compile_cubin(sak.KERNEL_SOURCE.read_text(), arch, sak.find_cuda_include_dir())
    assert cubin[:4] == b"\x7fELF"
    for float_type in sak.FLOAT_TYPES:
        for index_type in sak.INDEX_TYPES:
            assert sak.kernel_name(float_type, index_type).encode() in cubin


def test_compile_is_cached_per_source_and_arch() -> None:
    source, include = sak.KERNEL_SOURCE.read_text(), sak.find_cuda_include_dir()
    assert sak.compile_cubin(source, "sm_90", include) is sak.compile_cubin(source, "sm_90", include)


def test_compile_error_names_the_file_and_line() -> None:
    broken = sak.KERNEL_SOURCE.read_text() + "\nthis is not C++;\n"
    with pytest.raises(sak.KernelError) as caught:
        sak.compile_cubin(broken, "sm_90", sak.find_cuda_include_dir())
    assert "scatter_add.cu(" in str(caught.value) and "sm_90" in str(caught.value)


def test_cuda_path_takes_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toolkit_include = tmp_path / "include"
    shutil.copytree(sak.find_cuda_include_dir(), toolkit_include)
    monkeypatch.setenv("CUDA_PATH", str(tmp_path))
    assert sak.find_cuda_include_dir() == str(toolkit_include)
    # and the kernel compiles against the headers found there
    assert sak.compile_cubin(sak.KERNEL_SOURCE.read_text(), "sm_90", str(toolkit_include))[:4] == b"\x7fELF"


def test_kernel_names_and_validation() -> None:
    assert sak.kernel_name("bf16", "int64") == "scatter_add_bf16_i64"
    with pytest.raises(ValueError):
        sak.kernel_name("fp64", "int32")
    assert kernel_arrays.float_type_of("uint16") == "bf16"
    with pytest.raises(ValueError, match="unsupported feature dtype"):
        kernel_arrays.float_type_of("float64")
