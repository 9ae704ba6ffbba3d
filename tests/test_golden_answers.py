# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The golden table: every answer the driver gives where it refuses to go on, one row each,
through the real CLI. A row is the command line (and the files it needs), the exit status and the
exact first line on stderr. It is the one place where a message's wording is pinned: a change to
the driver that changes an answer changes a row here, visibly.

Each row runs ``python3 aliased_io_plugin.py ARGS`` in a process of its own, in a directory of its
own (the row's files are made there, so messages name them as a user's would: 'e.csv'), as a user
without root's privileges (tests/permission_bits.py) and with TensorRT hidden
(tests/hide_packages.py), so that a machine with TensorRT gives the same lines. The rows run a few
at a time, all of them before the first is checked.

Each row names the function whose refusal it reaches (``covers``). :func:`answer_sites` counts, in
the script and gnn/, every place that makes an answer: an ``InputError``, ``MissingPackage``,
``MissingExtra``, ``NoGpu`` or ``OutputFailure``, a parser error or a literal line of ``_fail``;
each function's places must be matched by as many rows, or by entries of ``UNREACHABLE`` (below,
with why), so that a new refusal without a row fails here.

Placeholders in a row's line: ``{tmp}``, the row's directory (the messages that give an absolute
path); ``{memory}``, what this process may still allocate, which depends on the machine
(``1.5 GiB``, ``900.0 MiB``); ``{cupy_says}``, CuPy's own words for a CUDA error, which depend on
its version. Nothing else varies.
"""

from __future__ import annotations

import ast
import io
import os
import re
import resource
import shlex
import stat
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, base_packages_missing, extras_missing, nvidia_driver_missing
from hide_packages import hiding
from permission_bits import honour_permission_bits
from test_cli import BASE_HINT as BASE
from test_cli import (NO_DRIVER, NO_TENSORRT, PREFIX, SCRIPT, WITHOUT_A_GPU, build_stand_in_driver,
                      c_compiler)
from test_cli import WITHOUT_THE_PACKAGES as WITHOUT_PACKAGES
from test_cli_answers import EXTRAS_HINT as EXTRAS
from test_hostile_inputs import LIMIT  # the child's address space

PRODUCT = [ROOT / "aliased_io_plugin.py", *sorted((ROOT / "gnn").glob("*.py"))]
PLACEHOLDERS = {"{memory}": r"\d+\.\d (?:GiB|MiB)", "{cupy_says}": r"cudaError\w+: [^;]+"}
MAX_LINE = 1 << 22  # gnn/inputs.py's, written out: the row's file is one character longer


# -- what a row's directory holds, besides text (str) and bytes ------------------------------------

@dataclass(frozen=True)
class Link:
    """A symbolic link to ``target``."""

    target: str


@dataclass(frozen=True)
class Folder:
    """A directory, with its permission bits set once everything inside it is made."""

    mode: int = 0o755


@dataclass(frozen=True)
class File:
    """A file with its permission bits."""

    content: str
    mode: int


@dataclass(frozen=True)
class Sparse:
    """A file of ``size`` bytes, all a hole: nothing on disk."""

    size: int


def npy(header: str, data: bytes = b"", version: bytes = b"\x01\x00") -> bytes:
    """A .npy file as bytes: the magic, the version, the header's length and the header as given,
    then ``data``."""
    text = header.encode("latin1")
    return b"\x93NUMPY" + version + len(text).to_bytes(2, "little") + text + data


def recorded(distribution: str, version: str) -> dict[str, str]:
    """What pip records for an installed ``distribution`` (read by importlib.metadata)."""
    name = f"{distribution.replace('-', '_')}-{version}.dist-info/METADATA"
    return {name: f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n"}


def npz(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


# -- the table ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    """One answer: ``args`` split as a shell splits them; ``line``: stderr's first line after
    "aliased_io_plugin.py: error: " ("" where stderr stays empty)."""

    covers: str  # the function that gives the answer: "inputs.open_table"
    args: str
    code: int
    line: str
    files: Mapping[str, object] = field(default_factory=dict)  # made in the row's directory
    site: Mapping[str, str] = field(default_factory=dict)  # modules put first on sys.path
    hide: tuple[str, ...] = ("tensorrt",)
    env: Mapping[str, str] = field(default_factory=dict)
    stdout: str = "pipe"  # or "full" (/dev/full), "closed", "closed pipe" (its reader gone)
    stderr: str = "pipe"  # or "full"
    needs: str = ""  # "no driver" (this machine's own case) or "stand-in driver" (test_cli.py's)
    python: str = ""  # "3.10": the script run as that Python sees itself


EDGES = "0,1\n1,2\n"
BROKEN = "raise ImportError('a broken install')\n"
CUDA_13 = " for CUDA 13 (r580 or newer)"
STAND_IN = "stand-in driver"
PY310 = ("import runpy, sys\nsys.version_info = (3, 10, 14, 'final', 0)\n"
         f"sys.argv = [{SCRIPT!r}, *sys.argv[1:]]\n"
         f"runpy.run_path({SCRIPT!r}, run_name='__main__')\n")

ROWS = [
    # -- the parser: argparse's own words, and this sample's --------------------------------------
    # (Not "invalid choice": argparse quotes the choices on some Pythons and not on others.)
    Row("argparse", "--frobnicate", 2, "unrecognized arguments: --frobnicate"),
    Row("argparse", "--prec fp16", 2, "unrecognized arguments: --prec fp16"),
    Row("argparse", "--num-classes two", 2, "argument --num-classes: invalid int value: 'two'"),
    Row("argparse", "--max-nodes 1.5", 2, "argument --max-nodes: invalid int value: '1.5'"),
    Row("argparse", "--synthetic 1 2", 2, "argument --synthetic: expected 3 arguments"),
    Row("argparse", "--graph karate --synthetic 4 4 1", 2,
        "argument --synthetic: not allowed with argument --graph"),
    Row("argparse", "--engine", 2, "argument --engine: expected one argument"),
    Row("cli._Parser.refuse_misread", "--validate=yes", 2, "--validate takes no value, got 'yes'"),
    Row("cli._Parser.refuse_misread", "-vv=1", 2, "--verbose takes no value, got '1'"),
    Row("cli._Parser.refuse_misread", "-validate", 2, "-validate is not a flag; --validate is"),
    Row("cli._Parser.refuse_misread", "--seed 1 --seed 2", 2,
        "--seed: given more than once; give each flag once"),
    # -- the flags, checked before any file is read ---------------------------------------------
    Row("cli.check_graph_choice", "--graph karate --edges [[0,1]]", 2,
        "--graph: cannot be combined with --node-features / --edges"),
    Row("cli.check_graph_choice", "--feature-file f.csv", 2,
        "--feature-file: only with --edge-file"),
    Row("cli.check_graph_choice", "--degrees powerlaw", 2, "--degrees: only with --synthetic"),
    Row("cli.check_graph_choice", "--graph karate --num-features 3", 2,
        "--num-features: only for --graph les-miserables/florentine and --edge-file without "
        "--feature-file (the karate club's features are one-hot, F = 34)"),
    Row("cli.check_graph_choice", "--num-features 3", 2,
        "--num-features: only for --graph les-miserables/florentine and --edge-file without "
        "--feature-file"),
    Row("cli.check_graph_choice", "--graph karate --num-classes 3", 2,
        "--num-classes: the karate club has 2 factions, got 3"),
    Row("cli.bounded.convert", "--num-classes 0", 2,
        "--num-classes: must be between 1 and 65536, got 0"),
    Row("cli.bounded.convert", "--edge-file e.csv --num-features +0", 2,
        "--num-features: must be between 1 and 65536, got +0", files={"e.csv": EDGES}),
    Row("cli.bounded.convert", "--iterations 1_000_001", 2,
        "--iterations: must be between 0 and 1000000, got 1_000_001"),
    Row("cli.bounded.convert", "--seed -1", 2,
        "--seed: must be between 0 and 9223372036854775807, got -1"),
    Row("cli.check_flags", "--synthetic 10 10 100000", 2,
        "--synthetic: F must be between 1 and 65536, got 100000"),
    Row("cli.check_flags", "--cuda-graph", 2, "--cuda-graph: needs --iterations N (N >= 1)"),
    Row("cli.check_flags", "--aot --no-alias", 2,
        "--no-alias: not with --aot (the ahead-of-time kernel always works in place)"),
    Row("cli.check_flags", "--aot --kernel reference", 2,
        "--kernel reference: not with --aot (its engine holds the fast kernel)"),
    Row("cli.check_flags", "--edge-file ' '", 2,
        "--edge-file ' ': an empty path; give a file name"),
    Row("cli.bounded.convert", "--max-edges 0", 2,
        "--max-edges: must be between 1 and 2^31 - 1, got 0"),
    Row("cli.bounded.convert", "--max-nodes 2147483648", 2,
        "--max-nodes: must be between 1 and 2^31 - 1, got 2147483648"),
    # -- the paths a run writes, checked before any work -----------------------------------------
    Row("outputs.check_path", "--engine ''", 2, "--engine '': an empty path; give a file name"),
    Row("outputs.check_path", "--draw-graph out", 2, "--draw-graph 'out': is a directory",
        files={"out": Folder()}),
    Row("outputs.check_path", "--engine new/", 2,
        "--engine 'new/': a directory's name (it ends in '/'); give a file name"),
    Row("outputs.check_path", "--engine no/e.plan", 2,
        "--engine 'no/e.plan': the directory '{tmp}/no' does not exist"),
    Row("outputs.check_path", "--draw-graph file/sub/g.png", 2,
        "--draw-graph 'file/sub/g.png': '{tmp}/file' is not a directory", files={"file": "x"}),
    Row("outputs.check_path", "--draw-graph file/g.png", 2,
        "--draw-graph 'file/g.png': '{tmp}/file' is not a directory", files={"file": "x"}),
    Row("outputs.check_path", f"--engine {'e' * 256}", 2,
        f"--engine '{'e' * 60}...{'e' * 40}': File name too long"),
    Row("outputs.check_path", "--draw-graph loop.png", 2,
        "--draw-graph 'loop.png': Too many levels of symbolic links",
        files={"loop.png": Link("loop.png")}),
    Row("outputs.check_path", "--draw-graph a/g.png", 2,
        "--draw-graph 'a/g.png': Too many levels of symbolic links",
        files={"a": Link("b"), "b": Link("a")}),
    Row("outputs.check_path", "--draw-graph g.png", 2,
        "--draw-graph 'g.png': it is a link into '{tmp}/gone', which does not exist",
        files={"g.png": Link("gone/g.png")}),
    # check_writable also refuses a rebuild (check_rebuild), which only TensorRT on a GPU asks
    # for: tests/test_cli_answers.py calls check_rebuild itself.
    Row("outputs.check_writable", "--draw-graph ro/g.png", 2,
        "--draw-graph 'ro/g.png': the picture will be written there, but its directory "
        "'{tmp}/ro' is not writable", files={"ro": Folder(0o555)}),
    Row("outputs.check_writable", "--draw-graph g.png", 2,
        "--draw-graph 'g.png': the picture will be written there, but it is not writable",
        files={"g.png": File("old", 0o444)}),
    Row("outputs.check_picture_path", "--draw-graph g.jpg", 2,
        "--draw-graph 'g.jpg': the picture is a PNG; give a name ending in .png"),
    Row("outputs.check_engine_path", "--engine /dev/null", 2,
        "--engine '/dev/null': the engine is saved as a file, but '/dev/null' is not a regular "
        "file"),
    Row("outputs.check_engine_path", "--engine e.plan", 2,
        "--engine 'e.plan': its description is saved as a file, but 'e.plan.json' is a "
        "directory", files={"e.plan.json": Folder()}),
    Row("outputs.check_engine_path", f"--engine {'e' * 251}", 2,
        f"--engine '{'e' * 60}...{'e' * 40}': its description is saved as "
        f"'{'e' * 60}...{'e' * 35}.json', but File name too long"),
    Row("outputs.check_writable", "--engine ro/e.plan", 2,
        "--engine 'ro/e.plan': the engine will be built and saved there, but its directory "
        "'{tmp}/ro' is not writable", files={"ro": Folder(0o555)}),
    # -- the graph's sources: the literals ---------------------------------------------------------
    Row("inputs._literal", "--edges [[", 2, "--edges: cannot parse '[[' as a Python list literal"),
    Row("inputs.parse_node_features", "--node-features []", 2,
        "--node-features: expected a non-empty list of numbers or of equal-length lists"),
    Row("inputs.parse_node_features", "--node-features [[1],2]", 2,
        "--node-features: node 1 mixes numbers and lists"),
    Row("inputs.parse_node_features", "--node-features [[]]", 2,
        "--node-features: node 0 has no features, each node needs at least one"),
    Row("inputs.parse_node_features", "--node-features [[1,2],[3]]", 2,
        "--node-features: node 1 has 1 feature, node 0 has 2 (rows must be equal)"),
    Row("inputs._check_feature", "--node-features '[1,\"a\",3,4]'", 2,
        "--node-features: node 1 has a non-numeric feature 'a'"),
    Row("inputs._check_feature", "--node-features [1e999,1,2,3]", 2,
        "--node-features: node 0 has a non-finite or too large feature inf"),
    Row("inputs.parse_graph", "--node-features [1,2]", 2,
        "--node-features: 2 nodes have features, but the default --edges name nodes 0 to 3; give "
        "at least 4 nodes, or --edges as well"),
    Row("inputs.parse_edges", "--edges []", 2,
        "--edges: expected a non-empty list of [source, target] pairs"),
    Row("inputs.parse_edges", "--edges [[0,1,2]]", 2,
        "--edges: edge 0 [0, 1, 2] is not a pair of integer node ids"),
    Row("inputs.parse_edges", "--edges [[0,9]]", 2,
        "--edges: edge 0 [0, 9] names node 9, outside [0, 3] (the default --node-features give 4 "
        "nodes)"),
    Row("inputs.parse_edges", "--node-features [1,2] --edges [[0,2]]", 2,
        "--edges: edge 0 [0, 2] names node 2, outside [0, 1] (2 nodes have features)"),
    # -- the built-in and synthetic graphs ---------------------------------------------------------
    Row("inputs.state_synthetic", "--synthetic 0 5 2", 2,
        "--synthetic: N, E and F must be >= 1, got 0, 5, 2"),
    Row("inputs.state_synthetic", "--synthetic 2147483648 1 1", 2,
        "--synthetic: N and E must be below 2^31 (int32 indices), got 2147483648, 1"),
    Row("inputs.state_networkx", "--graph florentine", 3,
        f"--graph florentine needs networkx: {EXTRAS}", site={"networkx/__init__.py": BROKEN}),
    # -- edge and feature files: the file --------------------------------------------------------
    Row("inputs._lines", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': line 2 is longer than 4194304 characters: not a table of numbers",
        files={"e.csv": "0,1\n" + "1" * 4194305 + "\n"}),
    Row("inputs.open_table", "--edge-file e.csv", 2, "--edge-file 'e.csv': no such file"),
    Row("inputs.open_table", "--edge-file e.csv/", 2,
        "--edge-file 'e.csv/': 'e.csv' is not a directory", files={"e.csv": EDGES}),
    Row("inputs._open_file", "--edge-file /dev/null", 2,
        "--edge-file '/dev/null': not a regular file"),
    Row("inputs.open_table", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': cannot read it (Too many levels of symbolic links)",
        files={"e.csv": Link("e.csv")}),
    Row("inputs.open_table", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': cannot read it (Permission denied)", files={"e.csv": File(EDGES, 0)}),
    Row("inputs._open_file", "--edge-file e.npz", 2,
        "--edge-file 'e.npz': a .npz archive (np.savez), not one table: save the array with "
        "np.save and give that .npy file", files={"e.npz": npz(edges=np.array([[0, 1]]))}),
    Row("inputs._open_file", "--edge-file e.zip", 2,
        "--edge-file 'e.zip': a zip archive, not one table: save the array with np.save and give "
        "that .npy file", files={"e.zip": b"PK\x05\x06" + bytes(18)}),
    Row("inputs._open_file", "--edge-file e.csv.gz", 2,
        "--edge-file 'e.csv.gz': compressed (gzip): decompress it first; this sample reads .npy "
        "and text", files={"e.csv.gz": b"\x1f\x8b\x08\x00"}),
    # -- .npy files --------------------------------------------------------------------------------
    Row("inputs._open_npy", "--edge-file e.npy", 2,
        "--edge-file 'e.npy': its .npy header is cut short: the file holds only 4 bytes",
        files={"e.npy": b"\x93NUM"}),
    Row("inputs._open_npy", "--edge-file e.npy", 2,
        "--edge-file 'e.npy': its .npy header is cut short: the file holds only 20 bytes",
        files={"e.npy": npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }\n")[:20]}),
    Row("inputs._open_npy", "--edge-file e.npy", 2,
        "--edge-file 'e.npy': a .npy file of format version 4.0, which this sample cannot read "
        "(np.save writes 1.0 to 3.0)", files={"e.npy": npy("{}", version=b"\x04\x00")}),
    Row("inputs._open_npy", "--edge-file e.npy", 2,
        "--edge-file 'e.npy': its .npy header is not one NumPy can read (np.save writes one it "
        "can)", files={"e.npy": npy("{'descr': 'nonsense'}\n", bytes(64))}),
    Row("inputs._open_npy", "--edge-file e.npy", 2,
        "--edge-file 'e.npy': its .npy header gives a negative length: shape [-1, 2]",
        files={"e.npy": npy("{'descr': '<i8', 'fortran_order': False, 'shape': (-1, 2), }\n")}),
    Row("inputs._open_npy", "--edge-file e.npy", 2,
        "--edge-file 'e.npy': holds Python objects (pickles are not loaded)",
        files={"e.npy": npy("{'descr': '|O', 'fortran_order': False, 'shape': (1, 2), }\n")}),
    Row("inputs._open_npy", "--edge-file e.npy", 2,
        "--edge-file 'e.npy': its data is cut short: its header describes shape [10, 2] of int64, "
        "160 bytes, and the file holds 8 bytes after the 71-byte header",
        files={"e.npy": npy("{'descr': '<i8', 'fortran_order': False, 'shape': (10, 2), }\n",
                            bytes(8))}),
    # -- text files --------------------------------------------------------------------------------
    Row("inputs._open_text", "--edge-file e.txt", 2,
        "--edge-file 'e.txt': 2.0 GiB of text is more than the 1.0 GiB this sample parses; save "
        "the table as .npy", files={"e.txt": Sparse(2 << 30)}),
    Row("inputs._open_text", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': cannot read it as numbers: line 2 is not UTF-8 text",
        files={"e.csv": b"# edges\n\xff,1\n"}),
    Row("inputs._open_text", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': cannot read it as numbers: line 1 holds no numbers "
        "('source,target'): start a header line with '#', which makes it a comment",
        files={"e.csv": "source,target\n0,1\n"}),
    Row("inputs._open_text", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': cannot read it as numbers: line 1 holds numbers with no separator "
        "this sample reads between them ('0|1'): separate the columns by a comma, a semicolon, "
        "tabs or spaces", files={"e.csv": "0|1\n"}),
    Row("inputs._open_text", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': cannot read it as numbers: line 1, column 2 is not a number: '1x'",
        files={"e.csv": "0,1x\n"}),
    Row("inputs._lines", "--edge-file e.csv", 2,
        f"--edge-file 'e.csv': line 1 is longer than {MAX_LINE} characters: not a table of "
        f"numbers", files={"e.csv": "1" * (MAX_LINE + 1)}),
    Row("inputs.read_table", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': cannot read it as numbers: line 3, column 2 is not a number: 'x'",
        files={"e.csv": "0,1\n1,2\n2,x\n"}),
    Row("inputs.read_table", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': cannot read it as numbers: line 2 has 3 columns, line 1 has 2; "
        "every line needs as many", files={"e.csv": "0,1\n1,2,3\n"}),
    Row("inputs.read_table", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': cannot read it as numbers: line 2 separates its columns by a "
        "semicolon, line 1 by a comma; use one separator throughout",
        files={"e.csv": "0,1\n1;2\n"}),
    Row("inputs.read_table", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': cannot read it as numbers: line 2 is not UTF-8 text",
        files={"e.csv": b"0,1\n\xff\n"}),
    # -- edge and feature files: what they hold ----------------------------------------------------
    Row("inputs.open_table", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': the graph has no edges", files={"e.csv": "# nothing\n"}),
    Row("inputs.open_table", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': expected 2 columns (source, target), got shape [1, 3]",
        files={"e.csv": "0,1,2\n"}),
    Row("inputs.open_table", "--edge-file e.npy", 2,
        "--edge-file 'e.npy': node ids must be integers, got text",
        files={"e.npy": np.array([["0", "1"]])}),
    Row("inputs.read_edges", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': edge 1 names node -1, which is negative",
        files={"e.csv": "0,1\n-1,0\n"}),
    Row("inputs.read_edges", "--edge-file e.csv", 2,
        "--edge-file 'e.csv': edge 0 names node 1.5, which is not an integer",
        files={"e.csv": "1.5,0\n"}),
    Row("inputs.read_edges", "--edge-file e.npy", 2,
        "--edge-file 'e.npy': edge 1 names node 18446744073709551615, which is above 2147483646 "
        "(int32 indices)", files={"e.npy": np.array([[0, 1], [2**64 - 1, 0]], dtype=np.uint64)}),
    Row("inputs.open_table", "--edge-file e.csv --feature-file f.npy", 2,
        "--feature-file 'f.npy': expected shape [N] or [N, F] with N, F >= 1, got [2, 2, 2]",
        files={"e.csv": EDGES, "f.npy": np.zeros((2, 2, 2))}),
    Row("inputs.open_table", "--edge-file e.csv --feature-file f.npy", 2,
        "--feature-file 'f.npy': features must be numbers, got true/false values",
        files={"e.csv": EDGES, "f.npy": np.array([True, False, True])}),
    Row("inputs.read_features", "--edge-file e.csv --feature-file f.csv", 2,
        "--feature-file 'f.csv': node 1 has a NaN or infinite feature",
        files={"e.csv": EDGES, "f.csv": "1\nnan\n3\n"}),
    Row("inputs.read_features", "--edge-file e.csv --feature-file f.csv", 2,
        "--feature-file 'f.csv' (one row per node): 2 nodes have features, but edge 1 [1, 2] of "
        "--edge-file 'e.csv' names node 2", files={"e.csv": EDGES, "f.csv": "1\n2\n"}),
    # -- sizes, values and the picture ----------------------------------------------------------
    Row("inputs.ensure_fits", "--synthetic 1000000000 1000000000 64", 2,
        "--synthetic 1000000000 1000000000 64 with the default --num-classes 3 (N = 1000000000, "
        "E = 1000000000, F = 64, C = 3): needs about 6388.9 GiB of memory, this process may use "
        "{memory}"),
    Row("inputs.ensure_fits", "--edge-file e.csv --num-classes 8", 2,
        "--edge-file 'e.csv' with the default --num-features 4 and --num-classes 8 (N = "
        "1000000001, E = 2, F = 4, C = 8; node ids up to 1000000000): needs about 670.6 GiB of "
        "memory, this process may use {memory}", files={"e.csv": "0,1\n1,1000000000\n"}),
    Row("cli.choose_bounds", "--max-nodes 2", 2,
        "--max-nodes: the graph has 4 nodes, more than the profile's maximum 2"),
    Row("cli.choose_bounds", "--synthetic 4 40 1 --max-edges 39 --seed 1", 2,
        "--max-edges: the graph has 40 edges, more than the profile's maximum 39"),
    Row("inputs.check_representable", "--node-features [70000,1,2,3] --precision fp16", 2,
        "--node-features: a feature of magnitude 70000 overflows fp16 (largest finite value "
        "65504)"),
    Row("inputs.check_representable", "--node-features [1e39,1,2,3]", 2,
        "--node-features: a feature of magnitude 1e+39 overflows fp32 (the default --precision; "
        "largest finite value 3.40282e+38)"),
    # What the network makes of the inputs, modelled in its types (model.arithmetic_problem).
    Row("inputs.prepare", "--node-features [40000,40000,1,1] --precision fp16", 2,
        "node 2: the sum of its incoming features (80000) overflows fp16 (largest finite value "
        "65504)"),
    Row("inputs.prepare", "--node-features [40000,30000] --edges [[1,0],[0,1]] --initial-x "
        "features --precision fp16 --validate", 2,
        "node 0: X + the sum of its incoming features (70000) overflows fp16 (largest finite "
        "value 65504)"),
    Row("inputs.prepare", "--node-features [60000,60000,-60000,0] --edges [[0,3],[1,3],[2,3]] "
        "--precision fp16 --kernel reference", 2,
        "node 3: X plus a partial sum of its incoming features (120000) overflows fp16 (largest "
        "finite value 65504)"),
    Row("inputs.prepare", "--edge-file e.csv --precision bf16 --kernel reference", 2,
        "node 0: its 65537 incoming edges are more than this kernel can add to X in bf16 one at a "
        "time within the tolerance (each addition may lose 2^-8 of the partial sum); the fast "
        "kernel (the default) sums in fp32", files={"e.csv": "1,0\n" * 65537}),
    Row("inputs.prepare", "--node-features [3e38,1] --edges [[0,1]] --initial-x features "
        "--seed 4", 2,
        "node 0, class 2: the logit W @ means (4.99117e+38, of terms reaching 4.99117e+38) "
        "overflows fp32, the type of the network's MatMul (largest finite value 3.40282e+38)"),
    Row("inputs.prepare", "--node-features [-3000,1000.5,1000.5,1000.5] --edges "
        "[[1,0],[2,0],[3,0]] --initial-x features --precision fp16", 2,
        "node 0: its X + the sums cannot be held to the fp16 tolerance: the network's fp16 "
        "arithmetic gives 2 where float64 gives 1.5, beyond 80% of the tolerance (docs/usage.md, "
        "Tolerances)"),
    Row("inputs.prepare", "--node-features [2048,1] --edges " + "[" + ",".join(["[1,0]"] * 20)
        + "] --initial-x features --precision fp16 --kernel reference", 2,
        "node 0: its X + the sums cannot be held to the fp16 tolerance: the network's fp16 "
        "arithmetic gives 2048 where float64 gives 2068, beyond 80% of the tolerance "
        "(docs/usage.md, Tolerances); this kernel adds in fp16 an edge at a time, the fast kernel "
        "(the default) sums in fp32"),
    Row("inputs.check_representable", "--edge-file e.csv --feature-file f.csv --precision bf16", 2,
        "--feature-file 'f.csv': a feature of magnitude 1e+39 overflows bf16 (largest finite "
        "value 3.38953e+38)", files={"e.csv": EDGES, "f.csv": "1\n1e39\n3\n"}),
    Row("inputs.prepare", "--synthetic 301 1 1 --draw-graph g.png --seed 1", 2,
        "--draw-graph: the graph has 301 nodes; pictures are limited to 300 (more are "
        "unreadable)"),
    Row("inputs.draw_picture", "--draw-graph g.png --seed 1", 3,
        f"--draw-graph needs networkx and matplotlib: {EXTRAS}",
        site={"matplotlib/__init__.py": BROKEN}),
    Row("inputs.draw_picture", "--draw-graph full.png --seed 1", 7,
        "--draw-graph 'full.png': cannot write it (No space left on device)",
        files={"full.png": Link("/dev/full")}),
    # -- output that cannot be written: exit 7 ----------------------------------------------------
    Row("cli.parse_args", "--seed 1", 7, "cannot write the output: stdout is closed",
        stdout="closed"),
    Row("cli._output_failed", "--help", 7, "cannot write the output: No space left on device",
        stdout="full"),
    Row("cli._output_failed", "--seed 1", 7, "cannot write the output: No space left on device",
        stdout="full"),
    Row("cli._output_failed", "--help", 7, "", stdout="closed pipe"),
    Row("cli._fail", "--num-classes 0", 7, "", stderr="full"),
    # -- the machine: the Python, the packages, the extras, the driver, TensorRT -----------------
    Row("aliased_io_plugin.<module>", "--help", 3,
        "Python 3.10 is too old: the sample needs Python 3.11 or later", python="3.10"),
    Row("machine.package_problems", "--seed 1", 3,
        f"NumPy is not installed: {BASE}; {NO_DRIVER}; {NO_TENSORRT}{WITHOUT_PACKAGES}",
        hide=("numpy", "tensorrt"), needs="no driver"),
    Row("machine.package_problems", "--seed 1", 3,
        f"CuPy is not installed: {BASE}; {NO_DRIVER}; {NO_TENSORRT}{WITHOUT_PACKAGES}",
        hide=("cupy", "tensorrt"), needs="no driver"),
    Row("machine.package_problems", "--seed 1", 3,
        f"CuPy, cuda-python and Polygraphy are not installed: {BASE}; {NO_DRIVER}; "
        f"{NO_TENSORRT}{WITHOUT_PACKAGES}",
        hide=("cupy", "cuda.bindings", "polygraphy", "tensorrt"), needs="no driver"),
    Row("machine.check_versions", "--seed 1", 3,
        f"cuda-python 12.8.0 is too old: kernels/cuda_calls.py imports cuda.pathfinder, which "
        f"comes with cuda-python >= 12.9.1 (CUDA 12) or 13 (CUDA 13): {BASE}; {NO_DRIVER}"
        f"{CUDA_13}; {NO_TENSORRT}{WITHOUT_PACKAGES}",
        site={"cuda/bindings/__init__.py": "__version__ = '12.8.0'\n",
              **recorded("cuda-bindings", "12.8.0")}, needs="no driver"),
    Row("machine.check_versions", "--seed 1", 3,
        f"Polygraphy 0.49.0 is too old: pip install 'polygraphy>=0.50.3'; {NO_DRIVER}{CUDA_13}; "
        f"{NO_TENSORRT}{WITHOUT_PACKAGES}",
        site={"polygraphy/__init__.py": "__version__ = '0.49.0'\n",
              **recorded("polygraphy", "0.49.0")}, needs="no driver"),
    Row("machine.missing_extras", "--graph florentine", 3,
        f"--graph florentine needs networkx: {EXTRAS}; {NO_DRIVER}{CUDA_13}; {NO_TENSORRT}",
        hide=("networkx", "tensorrt"), needs="no driver"),
    Row("machine.missing_extras", "--draw-graph g.png", 3,
        f"--draw-graph needs matplotlib: {EXTRAS}; {NO_DRIVER}{CUDA_13}; {NO_TENSORRT}",
        hide=("matplotlib", "tensorrt"), needs="no driver"),
    Row("machine.missing_extras", "--graph les-miserables --draw-graph g.png", 3,
        f"--graph les-miserables and --draw-graph need networkx: {EXTRAS}; {NO_DRIVER}{CUDA_13}; "
        f"{NO_TENSORRT}", hide=("networkx", "tensorrt"), needs="no driver"),
    Row("machine.check_driver", "--seed 1", 4,
        f"{NO_DRIVER}{CUDA_13}; {NO_TENSORRT}{WITHOUT_A_GPU}", needs="no driver"),
    Row("machine.check_driver", "--seed 1", 4,
        f"no usable CUDA GPU: the NVIDIA driver's cuInit failed with CUDA_ERROR_UNKNOWN; "
        f"{NO_TENSORRT}{WITHOUT_A_GPU}", env={"STAND_IN_CUINIT": "999"}, needs=STAND_IN),
    Row("machine.check_driver", "--seed 1", 4,
        f"no usable CUDA GPU: the NVIDIA driver's cuInit failed with CUresult 3; {NO_TENSORRT}"
        f"{WITHOUT_A_GPU}", env={"STAND_IN_CUINIT": "3"}, needs=STAND_IN),
    Row("machine.check_driver", "--seed 1", 4,
        f"no CUDA GPU found: the NVIDIA driver sees no device; {NO_TENSORRT}{WITHOUT_A_GPU}",
        env={"STAND_IN_DEVICES": "0"}, needs=STAND_IN),
    Row("machine.check_driver", "--seed 1", 4,
        f"no CUDA GPU found: the NVIDIA driver sees no device (CUDA_VISIBLE_DEVICES is ''); "
        f"{NO_TENSORRT}{WITHOUT_A_GPU}", env={"STAND_IN_CUINIT": "100", "CUDA_VISIBLE_DEVICES": ""},
        needs=STAND_IN),
    Row("machine.check_driver", "--seed 1", 4,
        f"NVIDIA driver too old: it supports CUDA 12.8, and CuPy here is built for CUDA 13: update "
        f"the driver (r580 or newer); {NO_TENSORRT}{WITHOUT_A_GPU}",
        env={"STAND_IN_DRIVER_VERSION": "12080"}, needs=STAND_IN),
    Row("machine.check_gpu", "--seed 1", 4,
        f"no usable CUDA GPU: the NVIDIA driver is loaded, but CuPy says {{cupy_says}}; "
        f"{NO_TENSORRT}{WITHOUT_A_GPU}", needs=STAND_IN),
    Row("machine.load_tensorrt", "--seed 1 --aot", 4,
        f"{NO_DRIVER}{CUDA_13}; {NO_TENSORRT}{WITHOUT_A_GPU}", needs="no driver"),
    Row("machine.load_tensorrt", "--seed 1", 4,
        f"{NO_DRIVER}{CUDA_13}; {NO_TENSORRT}{WITHOUT_A_GPU}",
        site={"tensorrt/py.typed": ""}, hide=(), needs="no driver"),
    Row("machine.load_tensorrt", "--seed 1", 4,
        f"{NO_DRIVER}{CUDA_13}; TensorRT 10.2.0 is too old: aliased plugin I/O needs >= 10.3"
        f"{WITHOUT_A_GPU}",
        site={"tensorrt/__init__.py": "__version__ = '10.2.0'\nclass PreviewFeature: pass\n"},
        hide=(), needs="no driver"),
    Row("machine.load_tensorrt", "--seed 1 --aot", 4,
        f"{NO_DRIVER}{CUDA_13}; TensorRT 10.8.1 is too old for --aot: ahead-of-time plugins need "
        f">= 10.9{WITHOUT_A_GPU}",
        site={"tensorrt/__init__.py": "__version__ = '10.8.1'\nclass PreviewFeature:\n"
                                      "    ALIASED_PLUGIN_IO_10_03 = 1\n"},
        hide=(), needs="no driver"),
]

# -- the places that answer and no row reaches, each with why ------------------------------------
# Each entry stands for one place in the function it names. The driver's other exit statuses need
# a GPU (5: TensorRT refused a stage; 6: the kernel did not compile) and are not in this table.
UNREACHABLE = [
    ("cli.exit_status", "'out of memory': a MemoryError the host estimate did not foresee; the "
                        "estimate refuses first (tests/test_memory_first.py raises one in "
                        "process)"),
    ("cli.choose_bounds", "a default bound past 2^31 - 1: a graph of more than 2^30 nodes or "
                          "edges, which the rows' memory limit refuses first"),
    ("outputs.read_engine", "a saved engine is read after the GPU check and TensorRT's load"),
    ("outputs.save_engine", "an engine is saved after the build, on a GPU"),
    ("machine.usable_gpu", "bf16 refused below compute capability 8.0: needs such a GPU"),
    ("machine.compile_kernel", "NVRTC's headers are looked for after the GPU check"),
    ("inputs.read_table", "'out of memory while reading it': the host estimate refuses first"),
    ("inputs.read_table", "'cannot read its data' of a .npy: only a file changed between its "
                          "opening (header checked against its size) and its reading"),
    ("inputs._lines", "more than 1 GiB read from a file that reports at most 1 GiB (one that grows "
                      "while it is read), as its lines are counted or parsed: neither fast nor "
                      "deterministic"),
]
# Rows whose answer no literal line of the driver makes: argparse's own words, and a failure that
# stderr cannot take (no line at all).
NOT_COUNTED = ("argparse", "cli._fail")
COUNTED = frozenset({"InputError", "MissingPackage", "MissingExtra", "NoGpu", "OutputFailure"})


# -- running the rows -----------------------------------------------------------------------------

def skip_reason(row: Row) -> str | None:
    if row.needs == "no driver" and nvidia_driver_missing() is None:
        return "this machine has an NVIDIA driver; the row is a machine without one"
    if row.needs == STAND_IN and c_compiler() is None:
        return "no C compiler for the stand-in driver library"
    return None


def make_files(directory: Path, files: Mapping[str, object]) -> None:
    modes = []
    for name, content in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            path.symlink_to(content.target)
        elif isinstance(content, Folder):
            path.mkdir(exist_ok=True)
            modes.append((path, content.mode))
        elif isinstance(content, File):
            path.write_text(content.content)
            modes.append((path, content.mode))
        elif isinstance(content, Sparse):
            with path.open("wb") as file:
                file.truncate(content.size)
        elif isinstance(content, np.ndarray):
            with path.open("wb") as file:  # np.save(name) would add ".npy" to other names
                np.save(file, content)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(str(content))
    for path, mode in reversed(modes):  # after the files in them, the last made first
        path.chmod(mode)


def child_setup(close_stdout: bool) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))
    honour_permission_bits()
    if close_stdout:
        os.close(1)


@dataclass
class Run:
    """A row's process and where its output goes."""

    process: subprocess.Popen[bytes]
    home: Path
    started: float


def start(row: Row, home: Path, driver: Path | None) -> Run:
    work, site = home / "work", home / "site"
    work.mkdir(parents=True)
    site.mkdir()
    make_files(work, row.files)
    make_files(site, row.site)
    env = {key: value for key, value in os.environ.items() if key != "CUDA_VISIBLE_DEVICES"}
    env.update(hiding(site, *row.hide), **row.env)
    if row.needs == STAND_IN and driver is not None:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(driver),
                                                               env.get("LD_LIBRARY_PATH")]))
    command = [sys.executable, SCRIPT, *shlex.split(row.args)]
    if row.python == "3.10":
        command = [sys.executable, "-c", PY310, *shlex.split(row.args)]
    with (home / "stdout").open("wb") as out, (home / "stderr").open("wb") as err, \
            open("/dev/full", "wb") as full:
        reader, writer = os.pipe()
        os.close(reader)  # "closed pipe": the reader gone before the child starts
        stdout = {"pipe": out, "full": full, "closed": None, "closed pipe": writer}[row.stdout]
        process = subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.DEVNULL,
                                   stdout=stdout, stderr={"pipe": err, "full": full}[row.stderr],
                                   preexec_fn=lambda: child_setup(row.stdout == "closed"))
        os.close(writer)
    return Run(process, home, time.monotonic())


def run_all(rows: list[tuple[int, Row]], base: Path, driver: Path | None,
            at_once: int) -> dict[int, tuple[int, str, Path]]:
    """(exit status, stderr, the row's directory) of each row, ``at_once`` processes at a time. One
    thread polls them all: a thread pool would start children with ``preexec_fn`` (the memory
    limit), which subprocess's documentation calls unsafe where threads run."""
    waiting, running, done = list(reversed(rows)), {}, {}
    while waiting or running:
        while waiting and len(running) < at_once:
            index, row = waiting.pop()
            running[index] = start(row, base / f"row{index:03d}", driver)
        for index, run in list(running.items()):
            if run.process.poll() is None and time.monotonic() - run.started < 120:
                continue
            if run.process.returncode is None:
                run.process.kill()
                run.process.wait()
            stderr = (run.home / "stderr").read_text(errors="replace")
            done[index] = (run.process.returncode, stderr, run.home / "work")
            del running[index]
        time.sleep(0.005)
    return done


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[int, str, Path]]:
    base = tmp_path_factory.mktemp("golden")
    driver = build_stand_in_driver(base / "driver")
    rows = [(index, row) for index, row in enumerate(ROWS) if skip_reason(row) is None]
    return run_all(rows, base, driver, max(2, os.cpu_count() or 2))


def expected_pattern(line: str, work: Path) -> str:
    """The row's line as a regular expression: its placeholders filled, the rest as written."""
    line = line.replace("{tmp}", str(work.resolve()))
    pieces = re.split("(" + "|".join(map(re.escape, PLACEHOLDERS)) + ")", line)
    return "".join(PLACEHOLDERS.get(piece, re.escape(piece)) for piece in pieces)


pytestmark = pytest.mark.skipif(
    bool(base_packages_missing() or extras_missing()),
    reason=f"the table is of a full install (requirements/dev.txt): "
           f"{base_packages_missing() or extras_missing()}")


@pytest.mark.parametrize("index", [
    pytest.param(index, id=f"{index:03d}-{row.covers}",
                 marks=[pytest.mark.skip(reason=str(skip_reason(row)))] if skip_reason(row) else [])
    for index, row in enumerate(ROWS)])
def test_each_answer(answers: dict[int, tuple[int, str, Path]], index: int) -> None:
    row = ROWS[index]
    code, stderr, work = answers[index]
    lines = stderr.splitlines()
    first = lines[0] if lines else ""
    expected = PREFIX + row.line if row.line else ""
    assert re.fullmatch(expected_pattern(expected, work), first), (
        f"python3 aliased_io_plugin.py {row.args}\n  got:      {first}\n  expected: {expected}")
    assert code == row.code, f"python3 aliased_io_plugin.py {row.args}: exit {code}\n{stderr}"
    assert len(lines) <= 1 and "Traceback" not in stderr, stderr


# -- every place that answers has a row --------------------------------------------------------

def _literal_start(node: ast.expr) -> bool:
    """A string, or an f-string with text of its own: a line written at this place (not
    ``f"{failure}{hint}"``, which passes on a line made elsewhere)."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(value, ast.Constant) for value in node.values)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _answers(call: ast.Call) -> bool:
    """Whether the call makes an answer: one of the failures, a parser error or a line of _fail
    written here, or the script's exit with a fixed status."""
    func, first = call.func, call.args[0] if call.args else None
    if isinstance(func, ast.Name):
        return func.id in COUNTED or (func.id == "_fail" and first is not None
                                      and _literal_start(first))
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
        return False
    if func.attr == "error" and func.value.id in ("self", "parser"):
        return first is not None and _literal_start(first)
    return (func.value.id, func.attr) == ("sys", "exit") and isinstance(first, ast.Constant)


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a body, not those of the functions and classes defined in it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
            stack.extend(ast.iter_child_nodes(node))


def _scopes(scope: ast.AST, name: str) -> Iterator[tuple[str, ast.AST]]:
    """The scope and every function and class in it, by qualified name."""
    yield name, scope
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from _scopes(node, f"{name.removesuffix('.<module>')}.{node.name}")
        else:
            stack.extend(ast.iter_child_nodes(node))


def answer_sites(sources: Mapping[str, str] | None = None) -> Counter[str]:
    """How many places make an answer, by function ("inputs.open_table"): each call that
    makes one, and each further raise of one a name holds (``raise cut_short`` twice). ``sources``:
    module name to text; the script and gnn/ by default."""
    if sources is None:
        sources = {path.stem: path.read_text() for path in PRODUCT}
    sites: Counter[str] = Counter()
    for module, text in sources.items():
        for name, scope in _scopes(ast.parse(text), f"{module}.<module>"):
            own = list(_own_nodes(scope))
            calls = [node for node in own if isinstance(node, ast.Call) and _answers(node)]
            held = {target.id for node in own if isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Call) and _answers(node.value)
                    for target in node.targets if isinstance(target, ast.Name)}
            raised = Counter(node.exc.id for node in own if isinstance(node, ast.Raise)
                             and isinstance(node.exc, ast.Name) and node.exc.id in held)
            count = len(calls) + sum(times - 1 for times in raised.values())
            if count:
                sites[name] += count
    return sites


def test_every_place_that_answers_has_a_row_or_a_reason() -> None:
    """A new refusal, or a new place in a function that already refuses, needs a row (or an entry
    of UNREACHABLE saying why none can reach it)."""
    named = Counter(row.covers for row in ROWS) + Counter(name for name, _ in UNREACHABLE)
    short = {name: (count, named[name]) for name, count in answer_sites().items()
             if named[name] < count}
    assert not short, f"places that answer, and the rows and reasons naming them: {short}"


def test_every_row_names_a_place_that_answers() -> None:
    sites = answer_sites()
    stale = {row.covers for row in ROWS} - set(sites) - set(NOT_COUNTED)
    assert not stale and {name for name, _ in UNREACHABLE} <= set(sites), stale


COUNTED_SOURCE = """
import sys
if sys.version_info < (3, 11):
    sys.exit(3)
def check(x):
    if x:
        raise InputError(f"--x: {x}")
    cut_short = InputError("cut short")
    if x > 1:
        raise cut_short
    raise cut_short from None
def packages():
    return [MissingPackage("NumPy is not installed")]
def parser():
    class Given:
        def __call__(self, parser):
            parser.error(f"{self}: given more than once")
    return Given
def fail(failure, hint, error):
    _fail(f"{failure}{hint}", 5)
    _fail(f"cannot write the output: {error}", 7)
    raise ValueError("not an answer")
"""


def test_the_count_finds_what_it_is_for() -> None:
    assert answer_sites({"m": COUNTED_SOURCE}) == Counter({
        "m.<module>": 1, "m.check": 3, "m.packages": 1, "m.parser.Given.__call__": 1, "m.fail": 1})
    # Every InputError the product makes (found by a plain walk of each file) lies in a scope the
    # count walks: none is hidden from it by nesting (a function in a function, a class's method).
    made = [node for path in PRODUCT for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "InputError"]
    seen = [node for path in PRODUCT for _, scope in _scopes(ast.parse(path.read_text()), "m")
            for node in _own_nodes(scope)
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "InputError"]
    assert len(seen) == len(made) > 0
