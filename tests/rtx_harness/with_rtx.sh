#!/usr/bin/env bash
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
# Runs a command with TensorRT-RTX usable on a GPU outside its list, such as an H100 or H200.
# For tests only (tests/rtx_harness/README.md). From the repository's root:
#
#   bash tests/rtx_harness/with_rtx.sh python3 -m pytest -m "gpu and rtx"
#
# Reads the bundle make_bundle.sh made (.rtx here, or RTX_BUNDLE=DIR), unpacks it once per machine
# and Python under /tmp (no pip, no package index), compiles shim.c, and runs the command with
# TensorRT-RTX and Polygraphy on PYTHONPATH, the shim preloaded and sitecustomize.py active.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"

fail() { echo "with_rtx.sh: error: $1" >&2; exit "${2:-3}"; }
[ $# -gt 0 ] || fail "no command: bash tests/rtx_harness/with_rtx.sh COMMAND [ARGUMENTS ...]" 2
bundle="${RTX_BUNDLE:-.rtx}"
[ -f "$bundle/BUNDLE" ] || fail "no TensorRT-RTX bundle in '$bundle': make it with tests/rtx_harness/make_bundle.sh"
bundle="$(cd "$bundle" && pwd)"
tag="$("$python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
site="${RTX_HARNESS_SITE:-/tmp/rtx_harness/$tag}"

unpack() {  # into a fresh directory, marked as done only once everything is in place
    local bindings wheel
    for wheel in "$bundle"/tensorrt_rtx_cu13_bindings-*-"$tag"-*.whl; do [ -f "$wheel" ] && bindings="$wheel"; done
    [ -n "${bindings:-}" ] || fail "the bundle has no TensorRT-RTX bindings for this Python ($tag): make it with 'bash tests/rtx_harness/make_bundle.sh .rtx $("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')'"
    rm -rf "$site" && mkdir -p "$site"
    "$python" -m zipfile -e "$bindings" "$site"
    "$python" -m zipfile -e "$bundle"/polygraphy-*.whl "$site"
    cp -r "$bundle/tensorrt_rtx" "$bundle/tensorrt_rtx_libs" "$site/"
    "$python" - "$site/tensorrt_rtx_libs" <<'PY'
import lzma, pathlib, shutil, sys
for packed in pathlib.Path(sys.argv[1]).glob("*.xz"):
    with lzma.open(packed) as source, open(packed.with_suffix(""), "wb") as target:
        shutil.copyfileobj(source, target, 1 << 24)
    packed.unlink()
PY
    cp "$bundle/BUNDLE" "$site/BUNDLE"
}

cmp -s "$bundle/BUNDLE" "$site/BUNDLE" 2>/dev/null || unpack
cc="$(command -v cc || command -v gcc || true)"
[ -n "$cc" ] || fail "no C compiler (cc or gcc) for tests/rtx_harness/shim.c"
"$cc" -O2 -shared -fPIC -o "$site/rtx_harness_shim.so" "$here/shim.c" -ldl
cp "$here/sitecustomize.py" "$site/"

export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
export LD_PRELOAD="$site/rtx_harness_shim.so${LD_PRELOAD:+:$LD_PRELOAD}"
export RTX_HARNESS=1 POLYGRAPHY_USE_TENSORRT_RTX=1
"$python" -c 'import sys, tensorrt_rtx; print(f"with_rtx.sh: TensorRT-RTX {tensorrt_rtx.__version__} from {sys.argv[1]}, '\
'compute capability 8.9 shown to its builder and deserializer only", file=sys.stderr)' "$site"
exec "$@"
