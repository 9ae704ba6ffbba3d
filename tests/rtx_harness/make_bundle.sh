#!/usr/bin/env bash
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
# Makes the TensorRT-RTX bundle that with_rtx.sh unpacks on a GPU machine without a package index.
# For tests only (tests/rtx_harness/README.md). Run it once, from the repository's root, on a
# machine that reaches PyPI:
#
#   bash tests/rtx_harness/make_bundle.sh [DEST [PYTHON_VERSION ...]]     (default: .rtx 3.12)
#
# DEST gets TensorRT-RTX (the version requirements/dev.txt pins) for x86-64 Linux: its two
# libraries xz-compressed (the libraries' wheel is 95 MB, the bundle about 62 MiB), its Python
# package, its bindings for each PYTHON_VERSION (the GPU machine's Python) and a Polygraphy wheel.
# Copy DEST to the GPU machine with the checkout (it is not in git: .gitignore lists /.rtx/). Takes a few
# minutes: compressing 234 MB with xz's strongest setting runs on one core.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest="${1:-.rtx}"
shift || true
pythons=("${@:-3.12}")
python="${PYTHON:-python3}"

fail() { echo "make_bundle.sh: error: $*" >&2; exit 1; }
pinned() {  # the version a requirements file pins for a package
    sed -n "s/^$1==\([^ #]*\).*/\1/p" "$2" | head -n 1
}
version="$(pinned tensorrt-rtx-cu13 requirements/dev.txt)"
[ -n "$version" ] || fail "requirements/dev.txt pins no tensorrt-rtx-cu13"
polygraphy="$(sed -n 's/^\(polygraphy[^ #]*\).*/\1/p' requirements/base.txt | head -n 1)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
download() { "$python" -m pip download -q --disable-pip-version-check --no-deps -d "$work" "$@"; }
wheels_for() {  # a wheel built for another machine: pip must not look at this one
    download --only-binary=:all: --platform manylinux_2_28_x86_64 --implementation cp "$@"
}

echo "make_bundle.sh: downloading TensorRT-RTX $version" >&2
download --no-binary=:all: "tensorrt-rtx-cu13==$version"  # the sdist holds the `tensorrt_rtx` package
wheels_for --python-version 3.12 "tensorrt-rtx-cu13-libs==$version"
for version_of_python in "${pythons[@]}"; do
    wheels_for --python-version "$version_of_python" "tensorrt-rtx-cu13-bindings==$version"
done
download --only-binary=:all: "$polygraphy"

rm -rf "$dest" && mkdir -p "$dest/tensorrt_rtx_libs"
"$python" -m zipfile -e "$work"/tensorrt_rtx_cu13_libs-*.whl "$work/libs"
tar -xzf "$work"/tensorrt_rtx_cu13-*.tar.gz -C "$work"
cp -r "$work"/tensorrt_rtx_cu13-*/tensorrt_rtx "$dest/"
cp "$work/libs/tensorrt_rtx_libs/__init__.py" "$dest/tensorrt_rtx_libs/"
cp "$work"/tensorrt_rtx_cu13_bindings-*.whl "$work"/polygraphy-*.whl "$dest/"
for library in "$work"/libs/tensorrt_rtx_libs/*.so*; do
    echo "make_bundle.sh: compressing $(basename "$library")" >&2
    # The x86 filter first: machine code compresses about a tenth better with it.
    "$python" - "$library" "$dest/tensorrt_rtx_libs/$(basename "$library").xz" <<'PY'
import lzma, shutil, sys
filters = [{"id": lzma.FILTER_X86}, {"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": 192 << 20}]
with open(sys.argv[1], "rb") as source, lzma.open(sys.argv[2], "wb", filters=filters) as target:
    shutil.copyfileobj(source, target, 1 << 24)
PY
done
echo "TensorRT-RTX $version for Python ${pythons[*]}, made by tests/rtx_harness/make_bundle.sh" > "$dest/BUNDLE"
du -sh "$dest" >&2
