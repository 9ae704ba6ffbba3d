#!/usr/bin/env bash
# The test command (README "Quick start"): makes .venv, or reuses the one there and says so,
# installs requirements/dev.txt and tensorrt-stubs into it, then runs pytest (CPU tests, TensorRT-RTX
# contract and build tests, pyright; GPU and TensorRT tests run where a GPU / TensorRT is present and
# are skipped with a reason otherwise).
#   bash run_tests.sh --fresh             # a new .venv, whatever .venv there is
#   WITH_TENSORRT=1 bash run_tests.sh     # GPU runner: also install requirements.txt (TensorRT)
#   SYSTEM_SITE_PACKAGES=1 bash run_tests.sh   # a container that already has TensorRT (NGC)
#   bash run_tests.sh -m gpu              # other arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")"
python="${PYTHON:-python3}"
say() { echo "run_tests.sh: $*" >&2; }

fresh=
if [ "${1:-}" = "--fresh" ]; then
    fresh=1
    shift
fi
venv_args=()
[ -n "${SYSTEM_SITE_PACKAGES:-}" ] && venv_args+=(--system-site-packages)
if [ -x .venv/bin/python ] && [ -z "$fresh" ]; then
    # The dev packages go into whatever .venv is here: say so, since it may be one made for the sample.
    system="$(sed -n 's/^include-system-site-packages *= *//p' .venv/pyvenv.cfg 2>/dev/null)"
    if [ -n "${SYSTEM_SITE_PACKAGES:-}" ] && [ "$system" != "true" ]; then
        say "error: the .venv here was made without the system's site packages, which SYSTEM_SITE_PACKAGES=1 asks for: run 'bash run_tests.sh --fresh'"
        exit 2
    fi
    with=$([ "$system" = "true" ] && echo "with" || echo "without")
    say "reusing .venv ($(.venv/bin/python --version 2>&1), $with the system's site packages) and installing requirements/dev.txt into it; 'bash run_tests.sh --fresh' makes a new one"
else
    say "making a new .venv${venv_args[*]:+ (${venv_args[*]})}"
    rm -rf .venv
    "$python" -m venv "${venv_args[@]}" .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements/dev.txt
if [ -n "${WITH_TENSORRT:-}" ]; then
    .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
fi
# --no-deps: the stubs declare a dependency on a full TensorRT 10.13; pyright only needs the .pyi
# files, kept out of site-packages so that `import tensorrt` still fails where TensorRT is absent.
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --upgrade \
    --target .typings tensorrt-stubs==10.13.0.35.1
export PATH="$PWD/.venv/bin:$PATH"
exec python -m pytest "$@"
