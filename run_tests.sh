#!/usr/bin/env bash
# The test command (README "Quick start"): makes .venv, installs requirements/dev.txt and
# tensorrt-stubs, then runs pytest (CPU tests, TensorRT-RTX contract and build tests, pyright; GPU and
# TensorRT tests run where a GPU / TensorRT is present and are skipped with a reason otherwise).
#   WITH_TENSORRT=1 bash run_tests.sh     # GPU runner: also install requirements.txt (TensorRT)
#   SYSTEM_SITE_PACKAGES=1 bash run_tests.sh   # a container that already has TensorRT (NGC)
#   bash run_tests.sh -m gpu              # extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")"
python="${PYTHON:-python3}"
venv_args=()
[ -n "${SYSTEM_SITE_PACKAGES:-}" ] && venv_args+=(--system-site-packages)
[ -x .venv/bin/python ] || "$python" -m venv "${venv_args[@]}" .venv
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
