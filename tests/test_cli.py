# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The real CLI in a subprocess: bad input is one line on stderr and exit 2, never a traceback;
what the machine lacks (NumPy, the driver, a GPU, TensorRT) is one line naming all of it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gnn import model
from conftest import (ROOT, base_packages_missing, copy_of_checkout, extras_missing, gpu_skip_reason, nvidia_driver_missing,
                      trt_skip_reason)
from gnn.model import make_run_inputs
from gnn.inputs import parse_graph
from hide_packages import hiding

SCRIPT = str(ROOT / "aliased_io_plugin.py")
PREFIX = "aliased_io_plugin.py: error: "
# What the user reads, written out here rather than taken from gnn/cli.py, so that a changed
# message fails a test.
BASE_HINT = "python3 -m pip install -r requirements/base.txt"
NO_TENSORRT = ("TensorRT is not installed: python3 -m pip install -r requirements.txt (from NVIDIA's index, "
               "pypi.nvidia.com), or NVIDIA's TensorRT container (docs/install.md)")
NO_DRIVER = "no NVIDIA driver (libcuda.so.1 cannot be loaded): the sample needs an NVIDIA GPU and its driver"
NO_DEVICE_HIDDEN = "no CUDA GPU found: the NVIDIA driver sees no device (CUDA_VISIBLE_DEVICES is '')"
# Where the CLI stops for want of a GPU or a package, its line ends with what does run on such a machine.
WITHOUT_A_GPU = ". Without a GPU, `bash run_tests.sh` runs the sample's tests that need none"
WITHOUT_THE_PACKAGES = (". `bash run_tests.sh` needs neither TensorRT nor NVIDIA's index: it installs its test "
                        "packages from PyPI and runs the tests this machine can run")


def run_cli(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, cwd=cwd, timeout=300,
                          env={**os.environ, **(env or {})})


def assert_one_line_error(result: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(PREFIX) and needle in lines[0], lines[0]


def problems(result: subprocess.CompletedProcess[str]) -> list[str]:
    """The problems the one error line names, in its order (they are joined by "; "); with exit 4 or 3,
    after checking that the line ends by naming what runs without a GPU or without the packages."""
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(PREFIX), result.stderr
    line = lines[0].removeprefix(PREFIX)
    ending = {4: WITHOUT_A_GPU, 3: WITHOUT_THE_PACKAGES}.get(result.returncode, "")
    assert line.endswith(ending), line
    return line.removesuffix(ending).split("; ")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--node-features", "[1.0, 3.0"], "--node-features: cannot parse"),
        (["--node-features", "[1.0, 'x']"], "non-numeric feature 'x'"),
        (["--node-features", "[[1, 2], [3]]"], "node 1 has 1 feature, node 0 has 2"),
        (["--edges", "[[0, 1], [1, 9]]"], "names node 9, outside [0, 3]"),
        (["--edges", "[[0, 1], [1]]"], "edge 1 [1] is not a pair"),
        (["--num-classes", "0"], "--num-classes: must be between 1 and 65536, got 0"),
        (["--num-classes", "-3"], "got -3"),
        (["--num-classes", "two"], "invalid int value: 'two'"),
        (["--precision", "fp64"], "invalid choice: 'fp64'"),
        (["--precision", "fp16", "--node-features", "[1e6, 1, 1, 1]"], "overflows fp16"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--aot", "--no-alias"], "--no-alias: not with --aot"),
        (["--aot", "--kernel", "reference"], "--kernel reference: not with --aot"),
        (["--kernel", "slow"], "invalid choice: 'slow'"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], needle: str) -> None:
    assert_one_line_error(run_cli(*args), 2, needle)


def test_help_lists_options_and_exit_codes() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    for option in ("--precision", "--node-features", "--edges", "--num-classes", "--validate", "--seed",
                   "--draw-graph", "--verbose", "bf16", "exit status", "--graph", "--edge-file",
                   "--feature-file", "--synthetic", "--degrees", "--num-features", "--aot", "--kernel"):
        assert option in result.stdout


@pytest.mark.gpu
@pytest.mark.skipif(base_packages_missing() is not None, reason=f"the CLI stops earlier: {base_packages_missing()}")
def test_missing_tensorrt_exits_3_after_the_kernel_is_ready(tmp_path: Path) -> None:
    result = run_cli("--seed", "5", env=hiding(tmp_path, "tensorrt"))
    assert result.returncode == 3 and problems(result) == [NO_TENSORRT]
    assert "Setting seed to: 5" in result.stdout  # inputs were parsed and the graph printed first
    assert "  0 1 1 0\n  0 0 1 1\n  0 0 0 1\n  1 0 0 0\n" in result.stdout
    assert "Kernel: " in result.stdout  # compiled or loaded before any TensorRT work


@pytest.mark.gpu
@pytest.mark.skipif(base_packages_missing() is not None, reason=f"the CLI stops earlier: {base_packages_missing()}")
def test_aot_without_tensorrt_exits_3_after_its_ptx_is_loaded(tmp_path: Path) -> None:
    result = run_cli("--aot", "--seed", "5", env=hiding(tmp_path, "tensorrt"))
    assert result.returncode == 3 and problems(result) == [NO_TENSORRT]
    assert "Kernel: PTX of scatter_add_aot (fp32, int32) for the engine" in result.stdout


@pytest.mark.skipif(trt_skip_reason() is None, reason="TensorRT is installed here")
def test_seed_is_printed_when_not_given() -> None:
    result = run_cli()
    seed_lines = [line for line in result.stdout.splitlines() if line.startswith("Setting seed to: ")]
    assert len(seed_lines) == 1 and int(seed_lines[0].split(": ")[1]) >= 0


@pytest.mark.skipif(extras_missing() is not None, reason=f"pictures: {extras_missing()}")
def test_draw_graph_writes_a_png_before_gpu_work(tmp_path: Path) -> None:
    picture = tmp_path / "g.png"
    result = run_cli("--node-features", "[[1, 2], [3, 4], [5, 6]]", "--edges", "[[0, 1], [2, 1]]",
                     "--draw-graph", str(picture), "--seed", "1")
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.returncode in (0, 3, 4)  # then runs, or stops at a missing package or GPU
    # Printed in the story's order: the seed and the graph, then its picture.
    lines = result.stdout.splitlines()
    drew = lines.index(f"Drew the input graph to {str(picture)!r}")
    assert lines[:drew] == ["Setting seed to: 1", "Graph: 3 nodes, 2 edges, 2 feature(s) per node",
                            "Adjacency matrix (row = source, column = target, value = number of edges):",
                            "  0 1 0", "  0 0 0", "  0 1 0"]


def hidden_gpu_problem() -> str:
    """The first problem named with CUDA_VISIBLE_DEVICES="": here, without a driver, the missing
    driver (the real case, not simulated); on a GPU machine, no device."""
    return NO_DRIVER if nvidia_driver_missing() else NO_DEVICE_HIDDEN


@pytest.mark.skipif(base_packages_missing() is not None, reason=f"the CLI stops earlier: {base_packages_missing()}")
def test_no_gpu_and_no_tensorrt_are_one_line_with_exit_4(tmp_path: Path) -> None:
    # CUDA_VISIBLE_DEVICES="" hides every GPU and TensorRT is hidden, so this runs on GPU machines too.
    result = run_cli("--seed", "1", env={"CUDA_VISIBLE_DEVICES": "", **hiding(tmp_path, "tensorrt")})
    assert result.returncode == 4, result.stderr
    gpu, tensorrt = problems(result)
    assert gpu.startswith(hidden_gpu_problem()) and tensorrt == NO_TENSORRT
    assert "Setting seed to: 1" in result.stdout  # the inputs were checked first


@pytest.mark.skipif(nvidia_driver_missing() is None, reason="an NVIDIA driver is installed: no driver cannot be produced")
@pytest.mark.skipif(base_packages_missing() is not None, reason=f"the CLI stops earlier: {base_packages_missing()}")
def test_without_a_driver_the_line_says_no_driver_not_an_old_one() -> None:
    """This machine's own case, nothing hidden: CuPy alone would report cudaErrorInsufficientDriver."""
    import cupy

    result = run_cli("--seed", "1")
    assert result.returncode == 4, result.stderr
    cuda_major = cupy.cuda.runtime.runtimeGetVersion() // 1000
    named = problems(result)
    assert named[0] == f"{NO_DRIVER} for CUDA {cuda_major}" + (" (r580 or newer)" if cuda_major == 13 else "")
    assert ("TensorRT is not installed" in "; ".join(named)) == (trt_skip_reason() is not None)
    assert "Insufficient" not in result.stderr


@pytest.mark.skipif(gpu_skip_reason() is None, reason="a usable GPU here: no cause to compare")
@pytest.mark.skipif(base_packages_missing() is not None, reason=f"the CLI stops earlier: {base_packages_missing()}")
def test_gpu_tests_are_skipped_for_the_cause_the_cli_names(tmp_path: Path) -> None:
    """Both come from the CLI's GPU check (gnn/machine.py), so the skip reason is the line's words."""
    result = run_cli("--seed", "1", env=hiding(tmp_path, "tensorrt"))
    assert result.returncode == 4 and problems(result) == [gpu_skip_reason(), NO_TENSORRT]


def test_without_numpy_one_line_names_everything_missing_with_exit_3(tmp_path: Path) -> None:
    result = run_cli("--validate", env={"CUDA_VISIBLE_DEVICES": "", **hiding(tmp_path, "numpy", "tensorrt")})
    assert result.returncode == 3, result.stderr
    numpy, gpu, tensorrt = problems(result)
    assert numpy == f"NumPy is not installed: {BASE_HINT}"
    # Without NumPy, CuPy cannot say which CUDA it needs, so the driver line names none.
    assert gpu == (NO_DRIVER if nvidia_driver_missing() else NO_DEVICE_HIDDEN) and tensorrt == NO_TENSORRT


def test_help_needs_no_numpy(tmp_path: Path) -> None:
    result = run_cli("--help", env=hiding(tmp_path, "numpy"))
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == run_cli("--help").stdout and result.stdout.startswith("usage: aliased_io_plugin.py")


@pytest.mark.parametrize(("args", "needle"), [
    (["--precision", "fp64"], "argument --precision: invalid choice: 'fp64'"),  # argparse
    (["--cuda-graph"], "--cuda-graph: needs --iterations N (N >= 1)"),  # the sample's own flag checks
])
def test_a_bad_flag_without_numpy_is_still_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    assert_one_line_error(run_cli(*args, env=hiding(tmp_path, "numpy")), 2, needle)


def test_missing_base_packages_are_named_together_with_the_command_that_installs_them(tmp_path: Path) -> None:
    """requirements/base.txt installs from PyPI alone; requirements.txt needs NVIDIA's index, so only
    TensorRT's own problem may name it."""
    env = {"CUDA_VISIBLE_DEVICES": "", **hiding(tmp_path, "cupy", "cuda.bindings", "polygraphy", "tensorrt")}
    result = run_cli("--seed", "1", env=env)
    assert result.returncode == 3, result.stderr
    packages, gpu, tensorrt = problems(result)
    assert packages == f"CuPy, cuda-python and Polygraphy are not installed: {BASE_HINT}"
    assert gpu.startswith(hidden_gpu_problem()) and tensorrt == NO_TENSORRT


@pytest.mark.gpu
@pytest.mark.skipif(base_packages_missing() is not None, reason=f"the CLI stops earlier: {base_packages_missing()}")
def test_a_kernel_that_does_not_compile_is_exit_6_before_tensorrt(tmp_path: Path) -> None:
    # A copy of the sample whose .cu file is broken: NVRTC fails, and nothing TensorRT runs.
    copy = copy_of_checkout(tmp_path / "sample")
    with (copy / "kernels" / "scatter_add.cu").open("a") as source:
        source.write("\nthis is not C++;\n")
    result = subprocess.run([sys.executable, str(copy / "aliased_io_plugin.py"), "--seed", "1"], capture_output=True,
                            text=True, timeout=300)
    assert_one_line_error(result, 6, "the scatter-add kernel could not be compiled or loaded: NVRTC failed")
    assert "scatter_add.cu(" in result.stderr and "TensorRT" not in result.stdout


def test_bf16_is_refused_below_compute_capability_8() -> None:
    assert model.unsupported_reason("bf16", (7, 5)) == (
        "TensorRT builds bf16 only on compute capability 8.0+, this GPU is 7.5")
    assert model.unsupported_reason("bf16", (8, 0)) is None
    assert model.unsupported_reason("fp16", (7, 5)) is None and model.unsupported_reason("fp32", (7, 5)) is None


def test_make_run_inputs_rounds_like_the_engine() -> None:
    graph = parse_graph("[[0.1, 0.2], [0.3, 0.4]]", "[[0, 1], [1, 1]]")
    inputs = make_run_inputs(graph, 3, "fp16", seed=11)
    assert inputs.idx.dtype.name == "int32" and inputs.idx.tolist() == [1, 1]
    assert inputs.src.tolist() == [inputs.features[0].tolist(), inputs.features[1].tolist()]
    assert inputs.features[0, 0] == float(np.float16(0.1))
    assert inputs.weights.shape == (3, 2) and not inputs.x.any()
    again = make_run_inputs(graph, 3, "fp16", seed=11)
    assert (again.weights == inputs.weights).all()  # the seed reproduces the weights


def test_make_run_inputs_sorts_edges_by_target_and_keeps_each_pair() -> None:
    graph = parse_graph("[1, 2, 3, 4]", "[[0, 3], [1, 0], [2, 3], [3, 1], [0, 1], [2, 0]]")
    inputs = make_run_inputs(graph, 2, "fp32", seed=0)
    assert inputs.idx.tolist() == [0, 0, 1, 1, 3, 3]  # the kernel's sorted fast path
    pairs = sorted(zip(inputs.src[:, 0].tolist(), inputs.idx.tolist()))
    assert pairs == sorted((float(graph.features[s, 0]), t) for s, t in graph.edges.tolist())
    assert inputs.src[:, 0].tolist() == [2.0, 3.0, 4.0, 1.0, 1.0, 3.0]  # stable: file order within a target


def test_the_runtime_is_named_as_loaded() -> None:
    """Only TensorRT is called TensorRT: a test's runtime under that name keeps its own."""
    import types

    from gnn import machine

    real = types.ModuleType("tensorrt")
    real.__version__ = "10.13.2"  # type: ignore[attr-defined]
    other = types.ModuleType("tensorrt_rtx")
    other.__version__ = "1.7.1.116"  # type: ignore[attr-defined]
    assert machine.runtime_name(real) == "TensorRT 10.13.2"
    assert machine.runtime_name(other) == "tensorrt_rtx 1.7.1.116 (not TensorRT)"


def test_the_in_place_note_says_what_the_engine_said() -> None:
    from aliased_io_plugin import binding_note

    assert binding_note("X", None) == ("the engine says X_out aliases X: X_out and X share one buffer, "
                                             "which now holds X + the sums")
    assert binding_note(None, None) == ("the plugin declares that X_out aliases X (the engine names no input "
                                        "for it): X_out and X share one buffer, which now holds X + the sums")


def test_nvidia_spellings_are_still_accepted() -> None:
    """One spelling (hyphens), and NVIDIA's sample's --node_features / --num_classes as well."""
    from gnn import cli

    parser = cli.build_parser()
    hyphens = parser.parse_args(["--node-features", "[1, 2]", "--num-classes", "4"])
    underscores = parser.parse_args(["--node_features", "[1, 2]", "--num_classes", "4"])
    assert vars(hyphens) == vars(underscores) and hyphens.node_features == "[1, 2]" and hyphens.num_classes == 4
    long_options = [option for action in parser._actions for option in action.option_strings if option.startswith("--")]
    assert [o for o in long_options if "_" in o] == ["--node_features", "--num_classes"]


def test_help_lists_every_exit_status_from_the_enum_then_the_rule_for_several() -> None:
    from gnn import cli

    result = run_cli("--help")
    listed = result.stdout[result.stdout.index("exit status:"):].splitlines()[1:]
    assert [line.strip() for line in listed[:8]] == [f"{int(code)} {meaning}" for code, meaning in
                                                    cli.EXIT_MEANINGS.items()]
    assert listed[8:] == cli.SEVERAL_MISSING.splitlines() and "packages (3), the GPU (4), TensorRT (3)" in result.stdout
    assert list(cli.EXIT_MEANINGS) == list(cli.Exit) == list(range(8))


def test_docs_exit_table_starts_each_row_with_the_help_text() -> None:
    import re

    from gnn import cli

    usage = (ROOT / "docs" / "usage.md").read_text()
    rows = dict(re.findall(r"^\| (\d) \| (.*) \|$", usage[usage.index("## Exit status"):], flags=re.M))
    assert sorted(map(int, rows)) == list(range(8))
    for code, meaning in cli.EXIT_MEANINGS.items():
        assert rows[str(int(code))].startswith(meaning), (code, rows[str(int(code))])


def test_precision_choices_are_the_precisions_module_names() -> None:
    """--help lists them without importing NumPy: gnn/cli.py takes the kernels' float types."""
    import kernels
    from gnn import cli

    precision = next(action for action in cli.build_parser()._actions if action.dest == "precision")
    assert precision.choices is kernels.FLOATS and kernels.FLOATS == model.NAMES


@pytest.mark.parametrize(("driver", "cuda_major", "expected"), [
    (dict(missing="libcuda.so.1: cannot open shared object file"), 13,
     "no NVIDIA driver (libcuda.so.1 cannot be loaded): the sample needs an NVIDIA GPU and its driver for CUDA 13 "
     "(r580 or newer)"),
    (dict(missing="libcuda.so.1: cannot open shared object file"), None,
     "no NVIDIA driver (libcuda.so.1 cannot be loaded): the sample needs an NVIDIA GPU and its driver"),
    (dict(version=12080, devices=1), 13,
     "NVIDIA driver too old: it supports CUDA 12.8, and CuPy here is built for CUDA 13: update the driver (r580 or newer)"),
    (dict(version=12080, devices=1), None, None),  # without CuPy the CUDA it needs is unknown
    (dict(version=13000, devices=1), 13, None),  # CUDA 13.0 runs a CuPy built for 13.x
    (dict(version=13000, init_error="CUDA_ERROR_NO_DEVICE"), 13, "no CUDA GPU found: the NVIDIA driver sees no device"),
    (dict(version=13000, init_error="CUDA_ERROR_NO_DEVICE", visible_devices=""), 13, NO_DEVICE_HIDDEN),
    (dict(version=12080, devices=0), 13, "no CUDA GPU found: the NVIDIA driver sees no device"),  # the basic cause first
    (dict(version=13000, init_error="CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"), 13,
     "no usable CUDA GPU: the NVIDIA driver's cuInit failed with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
])
def test_the_gpu_check_names_the_drivers_cause(driver: dict[str, object], cuda_major: int | None,
                                               expected: str | None) -> None:
    from gnn import machine

    assert machine.driver_problem(machine.Driver(**driver), cuda_major) == expected  # type: ignore[arg-type]


# A stand-in for the driver's libcuda.so.1 with the four calls the GPU check makes, answering as the
# environment says: the ctypes probe meets each cause on a machine with or without a GPU.
STAND_IN_DRIVER = r"""
#include <stdlib.h>
static int setting(const char *name, int fallback) { const char *v = getenv(name); return v ? atoi(v) : fallback; }
int cuDriverGetVersion(int *version) { *version = setting("STAND_IN_DRIVER_VERSION", 13000); return 0; }
int cuInit(unsigned int flags) { (void)flags; return setting("STAND_IN_CUINIT", 0); }
int cuDeviceGetCount(int *count) { *count = setting("STAND_IN_DEVICES", 1); return 0; }
int cuGetErrorName(int status, const char **name) {
    if (status == 100) { *name = "CUDA_ERROR_NO_DEVICE"; return 0; }
    if (status == 999) { *name = "CUDA_ERROR_UNKNOWN"; return 0; }
    return 1;  /* CUDA_ERROR_INVALID_VALUE: the probe must fall back to the number */
}
"""


def c_compiler() -> str | None:
    return shutil.which("cc") or shutil.which("gcc")


def build_stand_in_driver(directory: Path) -> Path | None:
    """``directory`` with libcuda.so.1 built from STAND_IN_DRIVER in it; None without a C compiler."""
    compiler = c_compiler()
    if compiler is None:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "libcuda.c").write_text(STAND_IN_DRIVER)
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(directory / "libcuda.so.1"), str(directory / "libcuda.c")],
                   check=True, timeout=60)
    return directory


@pytest.fixture(scope="module")
def stand_in_driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = build_stand_in_driver(tmp_path_factory.mktemp("driver"))
    if directory is None:
        pytest.skip("no C compiler for the stand-in driver library")
    return directory


def on_stand_in_driver(directory: Path, tmp_path: Path, settings: dict[str, str]) -> list[str]:
    """The CLI's problems with the stand-in driver first on the library path (exit 4 asserted)."""
    library_path = os.pathsep.join(filter(None, [str(directory), os.environ.get("LD_LIBRARY_PATH")]))
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    env.update(settings, LD_LIBRARY_PATH=library_path, **hiding(tmp_path, "tensorrt"))
    result = subprocess.run([sys.executable, SCRIPT, "--seed", "1"], capture_output=True, text=True, cwd=ROOT,
                            timeout=300, env=env)
    assert result.returncode == 4, result.stderr
    return problems(result)


@pytest.mark.skipif(base_packages_missing() is not None, reason=f"the CLI stops earlier: {base_packages_missing()}")
@pytest.mark.parametrize(("settings", "expected"), [
    ({"STAND_IN_CUINIT": "100"}, "no CUDA GPU found: the NVIDIA driver sees no device"),
    ({"STAND_IN_DEVICES": "0"}, "no CUDA GPU found: the NVIDIA driver sees no device"),
    ({"STAND_IN_CUINIT": "999"}, "no usable CUDA GPU: the NVIDIA driver's cuInit failed with CUDA_ERROR_UNKNOWN"),
    ({"STAND_IN_CUINIT": "3"}, "no usable CUDA GPU: the NVIDIA driver's cuInit failed with CUresult 3"),
])
def test_the_driver_probe_reads_each_cause_from_the_library(stand_in_driver: Path, tmp_path: Path,
                                                            settings: dict[str, str], expected: str) -> None:
    assert on_stand_in_driver(stand_in_driver, tmp_path, settings) == [expected, NO_TENSORRT]


@pytest.mark.skipif(base_packages_missing() is not None, reason=f"the CLI stops earlier: {base_packages_missing()}")
def test_the_driver_probe_finds_a_driver_older_than_cupys_cuda(stand_in_driver: Path, tmp_path: Path) -> None:
    import cupy

    needed = cupy.cuda.runtime.runtimeGetVersion() // 1000
    gpu, tensorrt = on_stand_in_driver(stand_in_driver, tmp_path, {"STAND_IN_DRIVER_VERSION": f"{needed - 1}080"})
    assert gpu.startswith(f"NVIDIA driver too old: it supports CUDA {needed - 1}.8, and CuPy here is built for "
                          f"CUDA {needed}: update the driver") and tensorrt == NO_TENSORRT


@pytest.mark.parametrize("flag", ["--engine", "--draw-graph"])
@pytest.mark.parametrize("path", ["", "  "])
def test_an_empty_output_path_is_refused_before_any_work(tmp_path: Path, flag: str, path: str) -> None:
    result = run_cli(flag, path, env=hiding(tmp_path, "numpy"))  # refused before NumPy is even looked for
    assert_one_line_error(result, 2, f"{flag} {path!r}: an empty path; give a file name")
    assert result.stdout == ""


@pytest.mark.skipif(base_packages_missing() is not None, reason=f"the CLI stops earlier: {base_packages_missing()}")
def test_the_seed_is_printed_only_where_something_random_uses_it() -> None:
    """The karate club's weights are fitted and its features one-hot: no seed to print. The default
    graph's class weights are random: its seed is printed, a random one too."""
    karate, default = run_cli("--graph", "karate"), run_cli()
    assert "Setting seed" not in karate.stdout and karate.stdout.startswith("Graph: 34 nodes")
    assert default.stdout.startswith("Setting seed to: ") and int(default.stdout.split("\n")[0].split(": ")[1]) >= 0


@pytest.mark.skipif(gpu_skip_reason() is None, reason="a usable GPU here: the CLI does not stop for one")
@pytest.mark.skipif(base_packages_missing() is not None, reason=f"the CLI stops earlier: {base_packages_missing()}")
def test_the_no_gpu_line_names_what_runs_here() -> None:
    result = run_cli("--seed", "1")
    assert result.returncode == 4 and result.stderr.rstrip().endswith(WITHOUT_A_GPU)
    assert WITHOUT_A_GPU.count("bash run_tests.sh") == 1


def test_a_python_older_than_3_11_is_one_line_with_exit_3_before_any_import() -> None:
    """As Python 3.10 would run the script (its version set before the script runs): one line, the exit
    status of a missing package as in run_tests.sh, and none of the sample's modules imported first."""
    from gnn import cli

    code = ("import runpy, sys\nsys.version_info = (3, 10, 14, 'final', 0)\n"
            f"sys.argv = [{SCRIPT!r}, '--help']\n"
            f"try:\n    runpy.run_path({SCRIPT!r}, run_name='__main__')\n"
            "finally:\n    print(sorted(name for name in sys.modules if name.startswith(('gnn', 'numpy'))))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 3 == cli.Exit.MISSING_PACKAGE
    assert result.stderr == f"{PREFIX}Python 3.10 is too old: the sample needs Python 3.11 or later\n"
    assert result.stdout == "[]\n"


def test_the_cli_and_run_tests_sh_refuse_the_same_pythons() -> None:
    import aliased_io_plugin

    assert aliased_io_plugin.MIN_PYTHON == (3, 11)
    assert "need Python 3.11 or later" in (ROOT / "run_tests.sh").read_text()


@pytest.mark.parametrize("args", [["--prec", "fp16"], ["--valid"], ["--node-feat", "[1, 2, 3, 4]"]])
def test_a_prefix_of_a_flag_is_refused(args: list[str]) -> None:
    """Were prefixes accepted, a flag added later could change what an old command line means."""
    assert_one_line_error(run_cli(*args), 2, f"unrecognized arguments: {' '.join(args)}")


def test_counted_short_flags_still_combine() -> None:
    from gnn import cli

    assert cli.build_parser().parse_args(["-vv"]).verbose == 2


@pytest.mark.parametrize("name", ["graph.jpg", "graph.svg", "graph"])
def test_a_picture_name_not_ending_in_png_is_refused_before_any_work(tmp_path: Path, name: str) -> None:
    result = run_cli("--draw-graph", str(tmp_path / name), env=hiding(tmp_path, "numpy"))
    assert_one_line_error(result, 2, f"--draw-graph {str(tmp_path / name)!r}: the picture is a PNG; give a name "
                                     "ending in .png")
    assert not (tmp_path / name).exists() and result.stdout == ""


@pytest.mark.parametrize("flag", ["--edge-file", "--feature-file", "--engine", "--draw-graph"])
def test_every_empty_path_is_refused_in_the_same_words(tmp_path: Path, flag: str) -> None:
    args = [flag, ""] + (["--edge-file", "graphs/example_edges.csv"] if flag == "--feature-file" else [])
    assert_one_line_error(run_cli(*args, env=hiding(tmp_path, "numpy")), 2, f"{flag} '': an empty path; give a file name")


def test_a_missing_extra_names_no_test_command(tmp_path: Path) -> None:
    """A picture is asked for by a flag, and leaving the flag out is the answer: no run_tests.sh there."""
    result = run_cli("--draw-graph", str(tmp_path / "g.png"), "--seed", "1",
                     env=hiding(tmp_path, "networkx", "matplotlib"))
    assert_one_line_error(result, 3, "--draw-graph needs networkx and matplotlib")
    assert "run_tests.sh" not in result.stderr
