# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The interface between the plugin and its kernels (kernels/__init__.py), on CPU: every kernel in KERNELS provides
its five calls and its launcher's launch(); the reference kernel compiles for every architecture and type pair (bf16
from sm_80), refuses an E past its int32 counts, and its fingerprint covers its .py; the fast kernel's fingerprint
covers what sizes its workspace (plan.py), its scratch is sized only where its GPU uses it, and its launcher refuses
a workspace too small for the launch before it launches anything."""

from __future__ import annotations

import ctypes
import gc
import inspect
import os
import re
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import cuda.bindings.driver as real_driver
import pytest

import kernels
from kernels import cuda_calls, plan
from kernels import reference
from kernels import scatter_add as fast
from kernels.cuda_calls import KernelError

ARCHES = ("sm_75", "sm_80", "sm_90")
PAIRS = [(f, i) for f in kernels.FLOATS for i in kernels.INDICES]
CALLS = ("problem", "workspace_size", "compile", "fingerprint", "load")


@pytest.mark.parametrize("name", kernels.KERNELS)
def test_each_kernel_provides_the_five_calls_with_the_interfaces_parameters(name: str) -> None:
    module = kernels.choose(name)
    for call in CALLS:
        wanted = list(inspect.signature(getattr(kernels.Kernel, call)).parameters.values())[1:]  # less self
        given = list(inspect.signature(getattr(module, call)).parameters.values())
        assert [(p.name, p.kind) for p in given] == [(p.name, p.kind) for p in wanted], call
    hints = typing.get_type_hints(module.load)  # the launcher's class, found without a GPU to load it on
    assert "return" in hints, f"{name}: load() names no launcher class as what it returns"
    wanted = inspect.signature(kernels.Launcher.launch).parameters
    assert list(inspect.signature(hints["return"].launch).parameters) == list(wanted)


# One order, by keyword: float_type, index_type, nodes, edges, features, arch, as each call needs them.
ORDER = ("float_type", "index_type", "nodes", "edges", "features", "arch")


@pytest.mark.parametrize("call", CALLS[:-1])
def test_the_interfaces_calls_take_keywords_in_one_order(call: str) -> None:
    parameters = list(inspect.signature(getattr(kernels.Kernel, call)).parameters.values())[1:]
    names = [p.name for p in parameters]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters), call
    assert names == sorted(names, key=ORDER.index), call
    assert names[:2] == ["float_type", "index_type"]  # the index type too: a kernel may sort idx in its workspace
    launch = list(inspect.signature(kernels.Launcher.launch).parameters.values())[1:]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in launch) and "x" not in [p.name for p in launch]


def test_plans_workspace_size_takes_the_interfaces_names_in_its_order() -> None:
    parameters = list(inspect.signature(plan.workspace_size).parameters.values())
    assert [p.name for p in parameters] == ["float_type", "nodes", "edges", "features", "arch"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters)


def test_the_kernels_and_the_default() -> None:
    """Ours are there (an author may add more: docs/copying.md), and the CLI offers every one."""
    assert {"fast", "reference"} <= set(kernels.KERNELS) and kernels.DEFAULT == "fast"
    assert (kernels.KERNELS["fast"], kernels.KERNELS["reference"]) == ("scatter_add", "reference")
    assert kernels.FLOATS == tuple(plan.FLOATS) and kernels.INDICES == tuple(plan.INDICES)
    from gnn import cli

    kernel = next(action for action in cli.build_parser()._actions if action.dest == "kernel")
    assert kernel.choices is kernels.KERNELS and kernel.default == kernels.DEFAULT  # --kernel's


def test_an_unknown_kernel_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=rf"^no kernel named 'quick': the kernels are {', '.join(kernels.KERNELS)}$"):
        kernels.choose("quick")


CHOOSE = """
import kernels
try:
    kernels.choose("reference")
except Exception as refused:
    print(type(refused).__name__, refused, sep=": ")
"""


@pytest.mark.parametrize("missing", ["cuda_calls.py", "reference.py"])
def test_a_copy_without_a_file_the_kernel_needs_is_refused_in_one_line(missing: str, tmp_path: Path) -> None:
    """The minimal copy less cuda_calls.py (the plumbing the kernel interface and every kernel of ours import), or less the
    kernel's module: choose() names the missing file in one line (a raw ImportError named neither)."""
    (tmp_path / "kernels").mkdir()
    for name in ("__init__.py", "cuda_calls.py", "reference.py", "reference.cu"):
        if name != missing:
            shutil.copy(Path(kernels.__file__).with_name(name), tmp_path / "kernels" / name)
    done = subprocess.run([sys.executable, "-c", CHOOSE], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ""})
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"ValueError: the kernel 'reference' is not here: kernels/{missing} is missing\n"


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("types", PAIRS, ids="-".join)
def test_the_reference_kernel_compiles_for_every_architecture_and_type_pair(arch: str, types: tuple[str, str]) -> None:
    named = dict(zip(("float_type", "index_type"), types))
    if types[0] == "bf16" and arch == "sm_75":  # the GPU's refusal is compile's: problem() takes no arch
        with pytest.raises(KernelError) as refused:
            reference.compile(**named, arch=arch)
        assert str(refused.value) == "the reference kernel takes bf16 from sm_80 on, not on sm_75"
        return
    code = reference.compile(**named, arch=arch)
    assert code.cubin[:4] == b"\x7fELF" and b"scatter_add_reference\0" in code.cubin
    assert (code.kernel, code.float_type, code.index_type, code.arch) == ("reference", *types, arch)
    assert code.fingerprint == reference.fingerprint(**named)
    assert reference.problem(**named, nodes=(0, 2**40), edges=(0, 2**31 - 1), features=(0, 2**40)) is None  # 64-bit


def test_the_reference_kernel_refuses_an_e_its_int32_counts_cannot_hold() -> None:
    """A row may get every edge: its in-degree, an int32, would wrap past 2^31 - 1 (the fast kernel's limit too)."""
    sizes = dict(float_type="fp32", index_type="int64", nodes=(1, 1), edges=(1, 2**31), features=(1, 1))
    assert reference.problem(**sizes) == "E = 2147483648 is past the reference kernel's limit of 2147483647 (int32 counts)"
    assert fast.problem(**sizes) is not None


# The reference kernel adds 16-bit values through the hardware's 2-wide atomics (a scalar 16-bit atomicAdd is a CAS
# loop): each value beside -0.0 in its aligned pair, the scalar atomic only where that pair would leave the buffer
# or be misaligned. Its SASS on sm_90 was read once: ATOM.E.ADD.F16x2 / BF16x2 in the loop, the CAS in the fallback.
def test_the_reference_kernel_adds_16_bit_values_in_pairs_beside_minus_zero() -> None:
    source = reference.SOURCE.read_text()
    code = re.sub(r"//[^\n]*", "", source)
    assert "const V zero = -0.0f;" in code and "V2(v, zero) : V2(zero, v)" in code
    assert "atomicAdd(reinterpret_cast<V2*>(dst + base), pair);" in code
    assert "const long long base = i & ~1LL;" in code and "if (!aligned || base + 1 >= n) {" in code
    assert code.count("atomicAdd(dst + i, v);") == 2  # fp32's, and the 16-bit fallback


def test_the_reference_kernels_fingerprint_covers_its_python_side(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """reference.py decides the arguments too: a copy of it edited as a template gets a fingerprint of its own."""
    first = reference.fingerprint(float_type="fp32", index_type="int32")
    changed = tmp_path / "reference.py"
    changed.write_text(Path(reference.__file__).read_text() + "# another argument\n")
    monkeypatch.setattr(reference, "__file__", str(changed))
    assert reference.fingerprint(float_type="fp32", index_type="int32") != first


def test_the_reference_kernel_needs_no_workspace_and_fits_its_size() -> None:
    assert reference.workspace_size(float_type="fp32", index_type="int32", nodes=(1, 1 << 30), edges=(1, 1 << 31),
                                    features=(1, 1), arch="sm_90") == 0
    assert len({reference.fingerprint(float_type=f, index_type=i) for f, i in PAIRS}) == len(PAIRS)
    lines = (Path(reference.__file__).with_name("reference.cu")).read_text().splitlines()
    assert len(lines) <= 60 and max(map(len, lines)) <= 100


# D1: an engine's workspace was sized by plan.py when it was built. The three changes each need more
# workspace than such an engine has: each must change the fingerprint, so that the engine is refused.
@pytest.mark.parametrize(("name", "value"), [("TARGET_SPANS", 8192), ("SCRATCH_EDGES", 1 << 16), ("SPAN_BYTES", 48),
                                             ("F1_EDGES", 4), ("PIECE_BYTES", 16 << 10)])
def test_the_fast_kernels_fingerprint_covers_plans_sizes(name: str, value: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    first = fast.fingerprint(float_type="fp32", index_type="int32")
    monkeypatch.setattr(plan, name, value)
    fast.fingerprint.cache_clear()
    try:
        assert fast.fingerprint(float_type="fp32", index_type="int32") != first
    finally:
        fast.fingerprint.cache_clear()


def test_the_fast_kernels_fingerprint_covers_plans_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule changed in plan.py (here, a comment stands for it) changes the fingerprint too."""
    first = fast.fingerprint(float_type="fp32", index_type="int32")
    changed = tmp_path / "plan.py"
    changed.write_text(Path(plan.__file__).read_text() + "# another rule\n")
    monkeypatch.setattr(plan, "__file__", str(changed))
    fast.fingerprint.cache_clear()
    try:
        assert fast.fingerprint(float_type="fp32", index_type="int32") != first
    finally:
        fast.fingerprint.cache_clear()


def test_f1_edges_is_one_fact() -> None:
    """The .cu file's K1 is plan.F1_EDGES, passed as a -D option (changing one can no longer break the other)."""
    assert f"-DSCATTER_F1_EDGES={plan.F1_EDGES}" in fast.defines("fp32", "int32")
    source = fast.KERNEL_SOURCE.read_text()
    assert "constexpr int K1 = SCATTER_F1_EDGES;" in source
    # No other K1: neither assigned nor declared (a template parameter or variable) nor a macro.
    assert re.findall(r"#\s*define\s+K1\b|\b(?:int|auto|unsigned|long)\s+K1\b|\bK1\s*=(?!=)", source) == ["int K1"]


# D3: fp32's scratch at F = 1, [N, 2] fp32, is used only from sm_90 on: below it, no workspace is reserved for it.
@pytest.mark.parametrize(("arch", "scratch"), [("sm_75", False), ("sm_80", False), ("sm_89", False),
                                               ("sm_90", True), ("sm_100", True)])
def test_the_scratch_is_reserved_only_where_the_kernel_uses_it(arch: str, scratch: bool) -> None:
    pieces = plan.workspace_size(float_type="fp32", nodes=(0, 0), edges=(1 << 20, 1 << 20), features=(1, 1))
    assert pieces < 8 * 100_000  # the flags and pieces alone
    assert fast.workspace_size(float_type="fp32", index_type="int32", nodes=(100_000, 100_000),
                               edges=(1 << 20, 1 << 20), features=(1, 1), arch=arch) == (8 * 100_000 if scratch else pieces)
    work = plan.launch(100_000, 1 << 20, 1, "fp32", 528, int(arch[3:]))
    assert work.scratch is scratch and work.workspace == (8 * 100_000 if scratch else pieces)


# launch() takes the workspace's size: a caller that sized it without N (the flags and pieces alone) gets a one-line
# refusal at fp32 F = 1, where the scratch needs 8N bytes, before anything is launched (no GPU is touched here).
def test_a_workspace_too_small_for_the_launch_is_refused_on_the_host() -> None:
    launcher = fast.ScatterAddKernel(functions=(None,) * 5, float_type="fp32", fit=528, arch=90)
    short = plan.workspace_size(float_type="fp32", nodes=(0, 0), edges=(1 << 20, 1 << 20), features=(1, 1))
    args = {"dst": 1 << 20, "src": 2 << 20, "idx": 3 << 20, "counts": 4 << 20, "n_nodes": 100_000,
            "n_feat": 1, "n_edges": 1 << 20, "workspace": 5 << 20, "stream": 0}
    with pytest.raises(ValueError, match=rf"^the workspace holds {short} bytes; N = 100000, E = 1048576, F = 1 need "
                                         rf"800000$"):
        launcher.launch(**args, workspace_size=short)
    with pytest.raises(ValueError, match="need 800000$"):  # what the profile of a single shape asks on sm_90
        launcher.launch(**args, workspace_size=799_999)


class Driver:
    """cuda.bindings.driver's calls that a launch makes, recorded instead of made (no GPU here): the host side of
    launch() is what these tests check."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[object, ...]]] = []
        self.version = 13000  # cuDriverGetVersion's: CUDA 13.0

    def cuMemsetD32Async(self, *args: object) -> tuple[int]:  # noqa: N802 - the driver's name
        self.calls.append(("memset", args))
        return (0,)

    def cuLaunchKernel(self, *args: object) -> tuple[int]:  # noqa: N802
        self.calls.append(("launch", args))
        return (0,)

    def cuLaunchKernelEx(self, *args: object) -> tuple[int]:  # noqa: N802
        self.calls.append(("overlap", args))
        return (0,)

    def cuDriverGetVersion(self) -> tuple[int, int]:  # noqa: N802
        return (0, self.version)

    # The driver's types that the recount's launch builds its configuration from: real ones.
    CUlaunchConfig = real_driver.CUlaunchConfig
    CUlaunchAttribute = real_driver.CUlaunchAttribute
    CUlaunchAttributeID = real_driver.CUlaunchAttributeID
    CUstream = real_driver.CUstream


@pytest.fixture
def driver(monkeypatch: pytest.MonkeyPatch) -> Driver:
    recorded = Driver()
    monkeypatch.setattr(cuda_calls, "driver", recorded)
    return recorded


# The fast kernel loads 16 bytes, stores 32 and adds float2s into its workspace: a workspace that is not 32-byte
# aligned is refused on the host in one line, before anything is launched (TensorRT's pointer is only seen there).
def test_a_misaligned_workspace_is_refused_on_the_host(driver: Driver) -> None:
    launcher = fast.ScatterAddKernel(functions=("zero", "main", "short spans", "fixup", "recount"), float_type="fp16",
                                     fit=528, arch=90)
    work = plan.launch(300, 5000, 33, "fp16", 528, 90)
    need = work.workspace
    assert need > 0 and work.span < plan.HUB_EDGES
    args = {"dst": 1 << 20, "src": 2 << 20, "idx": 3 << 20, "counts": 4 << 20, "n_nodes": 300, "n_feat": 33,
            "n_edges": 5000, "workspace_size": need + 64, "stream": 0}
    for misaligned in ((5 << 20) + 16, (5 << 20) + 8, (5 << 20) + 1):
        with pytest.raises(ValueError, match=rf"^the workspace must be 32-byte aligned \(.*\); it is at "
                                             rf"{misaligned:#x}$"):
            launcher.launch(**args, workspace=misaligned)
    assert driver.calls == []
    launcher.launch(**args, workspace=(5 << 20) + 32)
    assert [name for name, _ in driver.calls] == ["memset", "launch", "launch"]  # the main kernel and the fix-up
    # spans too short to look for hubs: the main kernel compiled without them
    assert [args[0] for name, args in driver.calls if name == "launch"] == ["short spans", "fixup"]


# From 2^24 edges the scratch's float counts may stop being exact, so the recount runs after the unpack; it is
# launched to overlap it (programmatic dependent launch), so that sorted input, where it waits and then leaves, does
# not wait for its launch too. Only the recount: every other kernel reads what the one before it wrote.
# CUDA graphs hold such a launch from CUDA 12.3's driver on: with an older driver (load decides), the recount is
# launched as the others are, so that TensorRT's capture of the enqueue still works.
@pytest.mark.parametrize("overlap", [True, False])
def test_only_the_recount_is_launched_to_overlap_the_kernel_before_it(driver: Driver, overlap: bool) -> None:
    launcher = fast.ScatterAddKernel(functions=("zero", "main", "short spans", "fixup", "recount"), float_type="fp16",
                                     fit=528, arch=90, overlap=overlap)
    work = plan.launch(4 << 20, 1 << 24, 1, "fp16", 528, 90)
    assert work.scratch and work.recount and work.fix_blocks > 0
    launcher.launch(dst=1 << 20, src=2 << 20, idx=3 << 20, counts=4 << 20, n_nodes=4 << 20, n_feat=1, n_edges=1 << 24,
                    workspace=1 << 30, workspace_size=work.workspace, stream=77)
    last = ("overlap", "recount") if overlap else ("launch", "recount")
    assert [(name, args[0] if name == "launch" else args[1]) for name, args in driver.calls] == [
        ("launch", "zero"), ("launch", "main"), ("launch", "fixup"), last]
    if not overlap:
        return
    config, _, params, extra = driver.calls[-1][1]
    assert (params, extra) == (driver.calls[0][1][9], 0)  # the same argument block as the others'
    assert (config.gridDimX, config.blockDimX, int(config.hStream)) == (work.fix_blocks, plan.FIX_BLOCK, 77)
    assert (config.gridDimY, config.gridDimZ, config.blockDimY, config.blockDimZ, config.sharedMemBytes) == (
        1, 1, 1, 1, 0)
    assert config.numAttrs == 1 and config.attrs[0].value.programmaticStreamSerializationAllowed == 1
    programmatic = real_driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    assert config.attrs[0].id == programmatic


# load() asks overlap_allowed: CUDA graphs hold a launch that overlaps the kernel before it from CUDA 12.3's driver on.
@pytest.mark.parametrize(("version", "allowed"), [(12020, False), (12030, True), (13000, True)])
def test_the_recount_overlaps_only_with_a_driver_of_cuda_12_3_or_later(driver: Driver, version: int,
                                                                      allowed: bool) -> None:
    driver.version = version
    assert fast.overlap_allowed() is allowed


# cuda_calls.packed caches argument blocks (1,024 of them); a launch passes packed's pair, the block's owner with its
# address, to cuda_calls.launch, so the block is alive when cuLaunchKernel reads it even where another thread's
# packing has dropped it from the cache meanwhile.
def test_the_argument_block_is_alive_when_culaunchkernel_reads_it(driver: Driver,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    dropped: list[bool] = []
    pack = cuda_calls.packed.__wrapped__  # type: ignore[attr-defined]  (lru_cache's: the uncached call)

    class Owner:
        def __init__(self, held: object) -> None:
            self.held = held

        def __del__(self) -> None:
            dropped.append(True)

    def uncached(values: tuple[int, ...], types: tuple[object, ...]) -> tuple[int, Owner]:
        address, held = pack(values, types)
        return address, Owner(held)

    read: list[list[int]] = []

    def launched(function: object, *grid_and_args: object) -> tuple[int]:
        gc.collect()
        assert not dropped, "the argument block was dropped before cuLaunchKernel read it"
        address = int(grid_and_args[8])  # type: ignore[call-overload]
        slots = (ctypes.c_void_p * 7).from_address(address)
        read.append([ctypes.c_longlong.from_address(int(slot)).value for slot in slots])
        return (0,)

    monkeypatch.setattr(cuda_calls, "packed", uncached)
    monkeypatch.setattr(driver, "cuLaunchKernel", launched)
    reference.ReferenceKernel(function="f").launch(dst=16, src=32, idx=48, counts=64, n_nodes=5, n_feat=3, n_edges=7,
                                                   workspace=0, workspace_size=0, stream=0)
    assert read == [[16, 32, 48, 64, 5, 7, 3]]  # dst, src, idx, counts; N, E, F


# Without the driver library, cuda-bindings raises cuda.pathfinder's DynamicLibNotFoundError at the first call: the
# loader's first call (cuInit) turns it into one line of ours that says what is missing.
def test_loading_without_a_driver_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from cuda.pathfinder import DynamicLibNotFoundError

    class NoDriver:
        def cuInit(self, flags: int) -> tuple[int]:  # noqa: N802 - the driver's name
            raise DynamicLibNotFoundError('"cuda" is an NVIDIA driver library and can only be found via system search.')

    code = reference.compile(float_type="fp32", index_type="int32", arch="sm_90")
    monkeypatch.setattr(cuda_calls, "driver", NoDriver())
    with pytest.raises(KernelError) as refused:
        reference.load(code)
    assert str(refused.value).startswith("no NVIDIA driver: the CUDA driver library cannot be loaded (")
    assert str(refused.value).endswith("); the kernel needs a GPU and its driver") and "\n" not in str(refused.value)
