#!/usr/bin/env bash
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
# Measures the candidate kernel against the kernel in kernels/, on a GPU machine, in a throwaway
# copy of the checkout: it patches the copy it runs in. From the copy's root:
#
#   bash benchmarks/candidates/measure_v17.sh OUT_DIR [tests|bench|ab|sanitize]...
#
# Each stage writes one log, named for the card, to OUT_DIR. The copy of kernels/ taken before the
# patch is the A/B's earlier version. CANDIDATE=FILE names the patch in benchmarks/candidates/.
set -uo pipefail
out="${1:?an output folder}"
shift
card="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')"
mkdir -p "$out"
candidate="${CANDIDATE:?a patch in benchmarks/candidates/, as CANDIDATE=NAME.patch}"
name="${candidate%.patch}"
digest="$(sha256sum "benchmarks/candidates/$candidate" | cut -c1-12)"
# Each call of the device machine brings a fresh copy of the tracked files, but an ignored file such
# as .candidate may survive from an earlier call: so whether the patch is in place is asked of the
# files themselves (it reverses cleanly), and one candidate is never measured under another's name.
applied() {
    patch -p1 -R -s -f --dry-run < "benchmarks/candidates/$1" > /dev/null 2>&1
}
if ! applied "$candidate"; then
    if [ -f .candidate ] && applied "$(cat .candidate)"; then
        echo "this copy holds $(cat .candidate)" >&2
        exit 4
    fi
    rm -rf /tmp/v16
    mkdir -p /tmp/v16
    cp -r kernels /tmp/v16/kernels
    patch -p1 -s < "benchmarks/candidates/$candidate" || exit 4
    echo "$candidate" > .candidate
fi
kernel_tests="tests/test_kernel_hubs_gpu.py tests/test_kernel_gpu.py tests/test_kernel_f1_gpu.py"
worst=0  # the sanitize stage's exit: the first tool that failed, not only the last one run
sanitize() {  # tool, then pytest's selection
    local tool="$1"
    shift
    compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 9 \
        python3 -m pytest -q -p no:cacheprovider -m gpu "$@"
    local status=$?
    if [ "$worst" -eq 0 ]; then worst=$status; fi
}
for stage in "$@"; do
    log="$out/${name}_${stage}_${card}.log"
    echo "== $stage of $candidate (sha256 $digest) on $card, $(date -u +%FT%TZ)" | tee "$log"
    case "$stage" in
        tests) python3 -m pytest -q -p no:cacheprovider -m gpu $kernel_tests ;;
        bench) python3 benchmarks/bench_scatter_add.py --skews --reps 8 ;;
        ab) python3 benchmarks/ab_versions.py /tmp/v16/kernels ;;
        sanitize)
            sanitize memcheck tests/test_kernel_hubs_gpu.py
            sanitize memcheck tests/test_kernel_f1_gpu.py -k "16_bit or takes_the_scratch"
            sanitize initcheck tests/test_kernel_f1_gpu.py -k "16_bit"
            sanitize racecheck tests/test_kernel_hubs_gpu.py -k "exact or across"
            sanitize initcheck tests/test_kernel_hubs_gpu.py -k "exact"
            sanitize synccheck tests/test_kernel_hubs_gpu.py -k "exact or across"
            exit "$worst" ;;
        *) echo "unknown stage $stage" ;;
    esac 2>&1 | tee -a "$log"
    echo "== $stage exit ${PIPESTATUS[0]}" | tee -a "$log"
done
