# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The interface between the plugin and its kernels (kernels/__init__.py), on CPU: every kernel in KERNELS provides
its five calls and its launcher's launch(); the reference kernel compiles for every architecture and type pair (bf16
from sm_80), refuses an E past its int32 counts, and its fingerprint covers its .py; the fast kernel's fingerprint
covers what sizes its workspace (plan.py), its scratch is sized only where its GPU uses it, and its launcher refuses
a workspace too small for the launch before it launches anything."""

from __future__ import annotations

import inspect
import re
import typing
from pathlib import Path

import pytest

import kernels
from kernels import plan
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
        wanted = inspect.signature(getattr(kernels.Kernel, call)).parameters
        assert list(inspect.signature(getattr(module, call)).parameters) == list(wanted)[1:], call  # less self
    hints = typing.get_type_hints(module.load)  # the launcher's class, found without a GPU to load it on
    assert "return" in hints, f"{name}: load() names no launcher class as what it returns"
    wanted = inspect.signature(kernels.Launcher.launch).parameters
    assert list(inspect.signature(hints["return"].launch).parameters) == list(wanted)


def test_the_kernels_and_the_default() -> None:
    """Ours are there (an author may add more: docs/copying.md), and the CLI offers every one."""
    assert {"fast", "reference"} <= set(kernels.KERNELS) and kernels.DEFAULT == "fast"
    assert (kernels.KERNELS["fast"], kernels.KERNELS["reference"]) == ("scatter_add", "reference")
    assert kernels.FLOATS == tuple(plan.FLOATS) and kernels.INDICES == tuple(plan.INDICES)
    from gnn.choices import KERNEL_NAMES

    assert KERNEL_NAMES == tuple(kernels.KERNELS) and KERNEL_NAMES[0] == kernels.DEFAULT  # --kernel's choices


def test_an_unknown_kernel_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=rf"^no kernel named 'quick': the kernels are {', '.join(kernels.KERNELS)}$"):
        kernels.choose("quick")


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("types", PAIRS, ids="-".join)
def test_the_reference_kernel_compiles_for_every_architecture_and_type_pair(arch: str, types: tuple[str, str]) -> None:
    if types[0] == "bf16" and arch == "sm_75":
        with pytest.raises(KernelError) as refused:
            reference.compile(arch, *types)
        assert str(refused.value) == "the reference kernel takes bf16 from sm_80 on, not on sm_75"
        assert reference.problem(*types, (1, 9), (1, 9), (1, 9), arch) == str(refused.value)
        return
    code = reference.compile(arch, *types)
    assert code.cubin[:4] == b"\x7fELF" and b"scatter_add_reference\0" in code.cubin
    assert (code.kernel, code.float_type, code.index_type, code.arch) == ("reference", *types, arch)
    assert code.fingerprint == reference.fingerprint(*types)
    assert reference.problem(*types, (0, 2**40), (0, 2**31 - 1), (0, 2**40), arch) is None  # 64-bit N and F


def test_the_reference_kernel_refuses_an_e_its_int32_counts_cannot_hold() -> None:
    """A row may get every edge: its in-degree, an int32, would wrap past 2^31 - 1 (the fast kernel's limit too)."""
    assert reference.problem("fp32", "int64", (1, 1), (1, 2**31), (1, 1), "sm_90") == (
        "E = 2147483648 is past the reference kernel's limit of 2147483647 (int32 counts)")
    assert fast.problem("fp32", "int64", (1, 1), (1, 2**31), (1, 1), "sm_90") is not None


def test_the_reference_kernels_fingerprint_covers_its_python_side(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """reference.py decides the arguments too: a copy of it edited as a template gets a fingerprint of its own."""
    first = reference.fingerprint("fp32", "int32")
    changed = tmp_path / "reference.py"
    changed.write_text(Path(reference.__file__).read_text() + "# another argument\n")
    monkeypatch.setattr(reference, "__file__", str(changed))
    assert reference.fingerprint("fp32", "int32") != first


def test_the_reference_kernel_needs_no_workspace_and_fits_its_size() -> None:
    assert reference.workspace_size("fp32", (1, 1 << 30), (1, 1 << 31), (1, 1), "sm_90") == 0
    assert len({reference.fingerprint(f, i) for f, i in PAIRS}) == len(PAIRS)
    lines = (Path(reference.__file__).with_name("reference.cu")).read_text().splitlines()
    assert len(lines) <= 60 and max(map(len, lines)) <= 100


# D1: an engine's workspace was sized by plan.py when it was built. The three changes each need more
# workspace than such an engine has: each must change the fingerprint, so that the engine is refused.
@pytest.mark.parametrize(("name", "value"), [("TARGET_SPANS", 8192), ("SCRATCH_EDGES", 1 << 16), ("SPAN_BYTES", 48),
                                             ("F1_EDGES", 4), ("PIECE_BYTES", 16 << 10)])
def test_the_fast_kernels_fingerprint_covers_plans_sizes(name: str, value: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    first = fast.fingerprint("fp32", "int32")
    monkeypatch.setattr(plan, name, value)
    fast.fingerprint.cache_clear()
    try:
        assert fast.fingerprint("fp32", "int32") != first
    finally:
        fast.fingerprint.cache_clear()


def test_the_fast_kernels_fingerprint_covers_plans_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule changed in plan.py (here, a comment stands for it) changes the fingerprint too."""
    first = fast.fingerprint("fp32", "int32")
    changed = tmp_path / "plan.py"
    changed.write_text(Path(plan.__file__).read_text() + "# another rule\n")
    monkeypatch.setattr(plan, "__file__", str(changed))
    fast.fingerprint.cache_clear()
    try:
        assert fast.fingerprint("fp32", "int32") != first
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
    sizes = (100_000, 100_000), (1 << 20, 1 << 20), (1, 1)
    pieces = plan.workspace_size("fp32", (1, 1), (1 << 20, 1 << 20), (0, 0))  # the flags and pieces alone
    assert pieces < 8 * 100_000
    assert fast.workspace_size("fp32", *sizes, arch) == (8 * 100_000 if scratch else pieces)
    work = plan.launch(100_000, 1 << 20, 1, "fp32", 528, int(arch[3:]))
    assert work.scratch is scratch and work.workspace == (8 * 100_000 if scratch else pieces)


# launch() takes the workspace's size: a caller that sized it without N (the flags and pieces alone) gets a one-line
# refusal at fp32 F = 1, where the scratch needs 8N bytes, before anything is launched (no GPU is touched here).
def test_a_workspace_too_small_for_the_launch_is_refused_on_the_host() -> None:
    launcher = fast.ScatterAddKernel(functions=(None,) * 4, float_type="fp32", fit=528, arch=90)
    short = plan.workspace_size("fp32", (1, 1), (1 << 20, 1 << 20), (0, 0))
    args = {"x": 1 << 20, "dst": 1 << 20, "src": 2 << 20, "idx": 3 << 20, "counts": 4 << 20, "n_nodes": 100_000,
            "n_feat": 1, "n_edges": 1 << 20, "workspace": 5 << 20, "stream": 0}
    with pytest.raises(ValueError, match=rf"^the workspace holds {short} bytes; N = 100000, E = 1048576, F = 1 need "
                                         rf"800000$"):
        launcher.launch(**args, workspace_size=short)
    with pytest.raises(ValueError, match="need 800000$"):  # what the profile of a single shape asks on sm_90
        launcher.launch(**args, workspace_size=799_999)
