# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The run's flags as typed, frozen values, and the checks that need nothing but the flags.

``gnn/cli.py`` makes one :class:`Options` from the command line and checks it with
:func:`check_flags`; each stage then reads its own part (the inputs stage :class:`InputOptions`,
the others a few plain fields). A flag that would be ignored is an error, so that what was asked
is what runs. Only the standard library is imported: these checks run before NumPy is looked for.
"""

from __future__ import annotations

from dataclasses import dataclass

from gnn.choices import NETWORKX_GRAPHS
from gnn.errors import InputError, quote_path
from gnn.output_paths import check_engine_path, check_output_path
from gnn.profile_bounds import check_bound

MAX_FEATURES = MAX_CLASSES = 1 << 16
MAX_ITERATIONS = 1_000_000
MAX_SEED = (1 << 63) - 1


class TypedInt(int):
    """An integer flag's value with the text it was given, so that a refusal echoes what the user
    typed: int() also reads "+5", "0_5" and " 5", which the number alone would not show."""

    typed: str


def typed_int(text: str) -> int:
    """argparse's type for the integer flags :func:`check_flags` range-checks; a ValueError for
    text that is not an integer, which argparse reports."""
    value = TypedInt(text)
    value.typed = text
    return value


# argparse names the type by __name__ in its "invalid int value: 'two'": the same words as type=int.
typed_int.__name__ = "int"


def as_typed(value: int) -> str:
    """The value as the user typed it; a default, which nobody typed, as Python writes it."""
    if isinstance(value, TypedInt):
        return value.typed
    return str(value)


@dataclass(frozen=True)
class GraphChoice:
    """Where the graph comes from: at most one of ``graph`` (built in), ``edge_file`` and
    ``synthetic``; without them, the literals (each None means the sample's default)."""

    graph: str | None = None
    edge_file: str | None = None
    feature_file: str | None = None
    synthetic: tuple[int, int, int] | None = None  # N, E, F
    degrees: str | None = None
    node_features: str | None = None
    edges: str | None = None
    num_features: int | None = None

    def source_flag(self) -> str:
        """The flag that chose the graph, as messages name it."""
        if self.synthetic:
            return "--synthetic"
        if self.edge_file:
            return f"--edge-file {quote_path(self.edge_file)}"
        return f"--graph {self.graph}" if self.graph else "--node-features/--edges"

    def feature_flag(self) -> str:
        """The flag the features came from, as messages name it."""
        if self.feature_file:
            return f"--feature-file {quote_path(self.feature_file)}"
        if self.synthetic:
            return "--synthetic"
        if self.graph:
            return f"--graph {self.graph}"
        return "--node-features"

    def has_random_features(self) -> bool:
        """Whether the graph gets --num-features seeded random features (it has none of its own)."""
        return self.graph in NETWORKX_GRAPHS or bool(self.edge_file and not self.feature_file)


@dataclass(frozen=True)
class InputOptions:
    """What the inputs stage reads: the graph, the precision its values are rounded to, the
    classifier's size, where X starts, the engine profile's bounds, the seed and the picture."""

    graph: GraphChoice
    precision: str = "fp32"
    precision_typed: bool = True  # False: no --precision given; messages call it the default
    num_classes: int | None = None
    initial_x: str | None = None  # None: the graph's own default
    max_nodes: int | None = None
    max_edges: int | None = None
    seed: int | None = None  # None: a random one, printed
    draw_graph: str | None = None


@dataclass(frozen=True)
class Options:
    """Every flag of a run, typed; made and checked by ``gnn/cli.py``."""

    inputs: InputOptions
    engine: str | None = None
    iterations: int = 0
    cuda_graph: bool = False
    aliased: bool = True  # False: --no-alias
    aot: bool = False
    kernel: str = "fast"  # --kernel: the class-based plugin's kernel (kernels.KERNELS)
    validate: bool = False
    verbose: int = 0

    @property
    def precision(self) -> str:
        return self.inputs.precision

    @property
    def exact_bounds(self) -> bool:
        """The user set the profile's bounds, so a saved engine must have exactly these."""
        return self.inputs.max_nodes is not None or self.inputs.max_edges is not None


def check_flags(options: Options) -> None:
    """Raise :class:`InputError` for the first flag that contradicts another, would be ignored,
    is out of range, or names an output that cannot be written."""
    choice, inputs = options.inputs.graph, options.inputs
    check_graph_choice(choice, inputs.num_classes)
    for flag, value, low, high in (("--num-features", choice.num_features, 1, MAX_FEATURES),
                                   ("--num-classes", inputs.num_classes, 1, MAX_CLASSES),
                                   ("--iterations", options.iterations, 0, MAX_ITERATIONS),
                                   ("--seed", inputs.seed, 0, MAX_SEED)):
        if value is not None and not low <= value <= high:
            raise InputError(f"{flag}: must be between {low} and {high}, got {as_typed(value)}")
    check_bound("--max-nodes", inputs.max_nodes)
    check_bound("--max-edges", inputs.max_edges)
    if choice.synthetic is not None and not 1 <= choice.synthetic[2] <= MAX_FEATURES:
        raise InputError(f"--synthetic: F must be between 1 and {MAX_FEATURES}, got {choice.synthetic[2]}")
    if options.cuda_graph and options.iterations < 1:
        raise InputError("--cuda-graph: needs --iterations N (N >= 1)")
    if options.aot and not options.aliased:
        raise InputError("--no-alias: not with --aot (the ahead-of-time kernel always works in place)")
    if options.aot and options.kernel != "fast":
        raise InputError(f"--kernel {options.kernel}: not with --aot (its engine holds the fast kernel)")
    for flag, path in (("--edge-file", choice.edge_file), ("--feature-file", choice.feature_file)):
        if path is not None and not path.strip():  # the same words as for an empty output path
            raise InputError(f"{flag} {quote_path(path)}: an empty path; give a file name")
    if options.engine is not None:
        check_engine_path(options.engine)
    if inputs.draw_graph is not None:
        check_output_path("--draw-graph", inputs.draw_graph, "the picture")
    if inputs.draw_graph is not None and not inputs.draw_graph.lower().endswith(".png"):
        # The picture is always PNG (graph_picture.py fixes the format for reproducible bytes); a .jpg
        # or .svg name would hold PNG data that its viewer cannot open.
        raise InputError(f"--draw-graph {quote_path(inputs.draw_graph)}: the picture is a PNG; give a name ending "
                         f"in .png")


def check_graph_choice(choice: GraphChoice, num_classes: int | None) -> None:
    """One source of the graph, and only the flags that source uses."""
    literal = choice.node_features is not None or choice.edges is not None
    chosen = [flag for flag, value in (("--graph", choice.graph), ("--edge-file", choice.edge_file),
                                       ("--synthetic", choice.synthetic)) if value is not None]
    if literal and chosen:
        raise InputError(f"{chosen[0]}: cannot be combined with --node-features / --edges")
    if choice.feature_file is not None and choice.edge_file is None:
        raise InputError("--feature-file: only with --edge-file")
    if choice.degrees is not None and choice.synthetic is None:
        raise InputError("--degrees: only with --synthetic")
    if choice.num_features is not None and not choice.has_random_features():
        karate = " (the karate club's features are one-hot, F = 34)" if choice.graph == "karate" else ""
        raise InputError(f"--num-features: only for --graph les-miserables/florentine and --edge-file without "
                         f"--feature-file{karate}")
    if choice.graph == "karate" and num_classes not in (None, 2):
        raise InputError(f"--num-classes: the karate club has 2 factions, got {num_classes}")
