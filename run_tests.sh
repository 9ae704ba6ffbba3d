#!/usr/bin/env bash
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
# The test command (README "Running the sample"): makes .venv, or reuses the one there and says so,
# installs requirements/dev.txt and tensorrt-stubs into it, then runs pytest (CPU tests, TensorRT-RTX
# contract and build tests, pyright; GPU and TensorRT tests run where a GPU / TensorRT is present and
# are skipped with a reason otherwise). A new .venv is about 1.2 GB and needs the package index.
#
# Where the Python that runs this script ($PYTHON, else python3) can import TensorRT (NVIDIA's
# container, or a TensorRT installed for that Python), a new .venv is made with the system's site
# packages, so that the TensorRT tests use that TensorRT; nothing needs to be set.
#   bash run_tests.sh --fresh             # a new .venv, whatever .venv there is
#   WITH_TENSORRT=1 bash run_tests.sh     # a GPU machine without TensorRT: also install requirements.txt
#   SYSTEM_SITE_PACKAGES=1 bash run_tests.sh   # see the system's site packages even without TensorRT
#   bash run_tests.sh -m gpu              # other arguments go to pytest
# Exit status: pytest's; 2 for a .venv that cannot serve what was asked; 3 for a Python older than 3.11.
set -euo pipefail
cd "$(dirname "$0")"
python="${PYTHON:-python3}"
say() { echo "run_tests.sh: $*" >&2; }

# One probe of the Python that makes .venv: its version, and TensorRT's version where it has a real
# one (a `tensorrt` without __version__ is a namespace package, such as tensorrt-stubs alone).
PROBE='import sys
try:
    import tensorrt
    trt = getattr(tensorrt, "__version__", None) or "-"
except Exception:
    trt = "-"
print("%d.%d" % sys.version_info[:2], trt)'

# "3.11 10.13.2": the version of the Python $1, and of its TensorRT ("-" for none); exits 3, saying
# what to do ($2), where that Python cannot run the sample.
probe() {
    local answer version
    if ! answer="$("$1" -c "$PROBE" 2>/dev/null)"; then
        say "error: '$1' does not run as Python; $2"
        exit 3
    fi
    version="${answer%% *}"
    if [ "$(printf '%s\n3.11\n' "$version" | sort -V | head -n 1)" != "3.11" ]; then
        say "error: Python $version ($1) is too old: the sample and its tests need Python 3.11 or later; $2"
        exit 3
    fi
    echo "$answer"
}
NEW_PYTHON="set PYTHON to Python 3.11 or later"
NEW_VENV="$NEW_PYTHON and run 'bash run_tests.sh --fresh'"

fresh=
if [ "${1:-}" = "--fresh" ]; then
    fresh=1
    shift
fi
reuse=$([ -x .venv/bin/python ] && [ -z "$fresh" ] && echo 1 || true)
if [ -n "$reuse" ]; then
    answer="$(probe .venv/bin/python "$NEW_VENV")"
    venv_trt="${answer#* }"
    # Only for the note below: where python3 is missing or old, the .venv still serves.
    system_trt="$( ("$python" -c "$PROBE" 2>/dev/null || echo "0 -") | cut -d' ' -f2)"
else
    answer="$(probe "$python" "$NEW_PYTHON")"
    system_trt="${answer#* }"
fi
venv_args=()
if [ -n "${SYSTEM_SITE_PACKAGES:-}" ] || [ "$system_trt" != "-" ]; then
    venv_args+=(--system-site-packages)
fi
if [ -n "$reuse" ]; then
    # The dev packages go into whatever .venv is here: say so, since it may be one made for the sample.
    system="$(sed -n 's/^include-system-site-packages *= *//p' .venv/pyvenv.cfg 2>/dev/null)"
    if [ -n "${SYSTEM_SITE_PACKAGES:-}" ] && [ "$system" != "true" ]; then
        say "error: the .venv here was made without the system's site packages, which SYSTEM_SITE_PACKAGES=1 asks for: run 'bash run_tests.sh --fresh'"
        exit 2
    fi
    with=$([ "$system" = "true" ] && echo "with" || echo "without")
    say "reusing .venv ($(.venv/bin/python --version 2>&1), $with the system's site packages) and installing requirements/dev.txt into it; 'bash run_tests.sh --fresh' makes a new one"
    if [ "$system_trt" != "-" ] && [ "$venv_trt" = "-" ] && [ -z "${WITH_TENSORRT:-}" ]; then
        say "note: $python has TensorRT $system_trt, which this .venv cannot see, so the TensorRT tests may skip: 'bash run_tests.sh --fresh' makes a .venv that sees it"
    fi
else
    if [ "$system_trt" != "-" ]; then
        say "making a new .venv with the system's site packages, so that the tests use TensorRT $system_trt of $python"
    else
        say "making a new .venv${venv_args[*]:+ (${venv_args[*]})}"
    fi
    rm -rf .venv
    "$python" -m venv "${venv_args[@]}" .venv
fi
say "installing requirements/dev.txt into .venv (when new: about 1.2 GB from the package index, about a minute)"
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements/dev.txt
if [ -n "${WITH_TENSORRT:-}" ]; then
    say "installing requirements.txt (TensorRT, from NVIDIA's package index) into .venv"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
fi
# --no-deps: the stubs declare a dependency on a full TensorRT 10.13; pyright only needs the .pyi
# files, kept out of site-packages so that `import tensorrt` still fails where TensorRT is absent.
# They are installed once and again only when the pin changes, so that a warm run needs no package
# index (pip finds everything of requirements/dev.txt installed already and asks no index).
STUBS_VERSION=10.13.0.35.1
if [ -d ".typings/tensorrt_stubs-$STUBS_VERSION.dist-info" ]; then
    say "tensorrt-stubs $STUBS_VERSION is in .typings already (for pyright)"
else
    say "installing tensorrt-stubs $STUBS_VERSION into .typings (for pyright)"
    rm -rf .typings
    .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps \
        --target .typings "tensorrt-stubs==$STUBS_VERSION"
fi
say "running pytest (2 to 7 minutes on two cores)"
export PATH="$PWD/.venv/bin:$PATH"
exec python -m pytest "$@"
