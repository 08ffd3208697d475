#!/usr/bin/env bash
# One batch on a GPU machine over binaries built elsewhere and carried in
# .carry/ (see scripts/pack_gpu.sh): every device suite on CUDA, the kernel
# check, compute-sanitizer, the benchmarks. Logs go to $OUT. PHASES picks
# parts (default "tests sanitize bench"), so each fits one device call.
set -uo pipefail
OUT=${OUT:-/tmp/ek-out}; mkdir -p "$OUT"
c=.carry
export LD_LIBRARY_PATH="$PWD/$c/lib:${LD_LIBRARY_PATH:-}"
export EK_TEST_DEVICE=${EK_TEST_DEVICE:-all} EK_REQUIRE_GPU=1 EK_LIBRARY="$PWD/$c/lib/libek.so.0"
# Images the custom-kernel suites load; a fresh kernel cache for this batch.
export EK_TEST_CUBIN="$PWD/$c/tests/module_kernel.cubin" EK_TEST_FATBIN="$PWD/$c/tests/module_kernel.fatbin"
export EK_TEST_PTX="$PWD/$c/tests/module_kernel.ptx" EK_KERNEL_CACHE_DIR=$(mktemp -d)
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
pass=0; failed=()
run() {  # name, command...
  local name=$1; shift
  if "$@" > "$OUT/$name.log" 2>&1; then pass=$((pass+1)); echo "PASS $name: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) |passed|failed' "$OUT/$name.log" | tail -3 | tr '\n' ' ')"
  else failed+=("$name"); echo "FAIL $name"; tail -30 "$OUT/$name.log"; fi
}
PHASES=${PHASES:-tests sanitize bench}
phase() { [[ " $PHASES " == *" $1 "* ]]; }
if phase tests; then
for t in "$c"/tests/test_*; do run "$(basename "$t")" "$t"; done
run quickstart_c "$c/examples/quickstart"
[ -x "$c/examples/quickstart_cpp" ] && run quickstart_cpp "$c/examples/quickstart_cpp"
# Twice: the second process finds the kernel in the disk cache.
run custom_kernel_jit "$c/examples/custom_kernel_jit"
run custom_kernel_jit_again "$c/examples/custom_kernel_jit"
run custom_kernel_static "$c/examples/custom_kernel_static" "$c/examples/scale.fatbin"
run jit_race bash tests/jit_race.sh "$c/examples/custom_kernel_jit"
for q in rust go; do [ -x "$c/examples/quickstart_$q" ] && run "quickstart_$q" "$c/examples/quickstart_$q"; done
[ -x "$c/examples/custom_kernel_rust" ] && run custom_kernel_rust "$c/examples/custom_kernel_rust"
[ -f examples/python/quickstart.py ] && run quickstart_python env PYTHONPATH=bindings/python python3 examples/python/quickstart.py
run cuda_copy_check "$c/tests/cuda_copy_check"
[ -d bindings/python/tests ] && run pytest env PYTHONPATH=bindings/python python3 -m pytest -q bindings/python/tests
for b in "$c"/rust/*; do [ -x "$b" ] && run "rust_$(basename "$b")" "$b"; done
[ -x "$c/go/ek.test" ] && run go_test "$c/go/ek.test" -test.count=1 -test.v
fi
if phase profile; then
# The profiler's picture: a small workload's trace, drawn by scripts/plot_trace.py.
run profile_workload env PYTHONPATH=bindings/python python3 examples/python/profile_workload.py \
  "$OUT/trace-h100.json"
fi
if phase colbench; then
[ -x "$c/bench/col_variants" ] && run col_variants "$c/bench/col_variants"
fi
if phase bench; then
# BENCHES picks the C benchmarks (all three: "bench_ops bench_alloc bench_copy").
for b in ${BENCHES:-bench_ops bench_fused}; do [ -x "$c/bench/$b" ] && run "$b" "$c/bench/$b" --json "$OUT/$b.json"; done
[ -f bench/compare_copy.py ] && [ -z "${SKIP_COPY:-}" ] && run compare_copy env PYTHONUNBUFFERED=1 python3 bench/compare_copy.py --json "$OUT/compare_copy.json"
run compare_ops env PYTHONUNBUFFERED=1 python3 bench/compare_ops.py --json "$OUT/compare_ops.json" \
  --md "$OUT/compare_ops.md" --png "$OUT/compare_ops.png"
[ -f bindings/python/bench_overhead.py ] && run python_overhead env PYTHONPATH=bindings/python python3 bindings/python/bench_overhead.py
for b in "$c"/overhead/*; do [ -x "$b" ] && run "overhead_$(basename "$b")" "$b"; done
# Host overhead alone (1-element tensors: the GPU never paces the loop).
[ -x "$c/overhead/rust" ] && run overhead_rust_1 "$c/overhead/rust" --numel 1
[ -x "$c/overhead/go" ] && run overhead_go_1 "$c/overhead/go" -numel 1
fi
if phase overhead; then
# Each binding's host cost per op, the committed one against the one in
# .carry/base-bind (an older binding over the same library), alternating.
b=$c/base-bind
for round in $(seq "${ROUNDS:-2}"); do
  for side in base new; do
    if [ $side = base ]; then py=$b/python rs=$b/rust go=$b/go; else py=bindings/python rs=$c/overhead/rust go=$c/overhead/go; fi
    [ -d "$py" ] && run "python_overhead_${side}_$round" env PYTHONPATH="$py" python3 bindings/python/bench_overhead.py
    [ -x "$rs" ] && run "overhead_rust_${side}_$round" "$rs" --numel 1
    [ -x "$go" ] && run "overhead_go_${side}_$round" "$go" -numel 1
  done
done
fi
if phase benchcmp; then
# Before/after on the same machine: .carry/base holds the library and the
# benchmarks of the commit before (built there and copied in by hand); the
# runs alternate so drift hits both sides (bench/compare_runs.py).
if [ -x "$c/base/bench_ops" ]; then
  for round in 1 2; do
    for x in bench_ops bench_copy; do
      [ "$x" = bench_copy ] && [ "$round" = 2 ] && continue
      LD_LIBRARY_PATH="$PWD/$c/base:${LD_LIBRARY_PATH:-}" run "$x-before-$round" "$c/base/$x"
      run "$x-after-$round" "$c/bench/$x"
    done
  done
  for x in bench_ops bench_copy; do
    python3 bench/compare_runs.py --before "$OUT/$x"-before-*.log --after "$OUT/$x"-after-*.log \
      --md "$OUT/$x-compare.md" > /dev/null
  done
fi
[ -x "$c/bench/bench_handles" ] && run bench_handles "$c/bench/bench_handles"
fi
if phase sanitize; then
# MEMCHECK and RACECHECK pick suites (default: all of them). Under memcheck the
# stress suites run 10^4 operations per thread (EK_STRESS_OPS), not 10^5.
for t in ${MEMCHECK:-test_copy test_memory test_streams test_tensor test_elementwise test_reduce \
         test_ternary test_random test_softmax test_scan test_matmul test_indexing test_module \
         test_kernel test_elementwise_kernel test_concurrency test_leaks test_profiler test_api_shape test_dlpack \
         test_index_key test_out_dtype test_hpp test_graph test_fusion}; do
  [ -x "$c/tests/$t" ] || continue
  # Driver and runtime calls that fail on purpose: the suites that compile user
  # kernels (cuFuncGetParamInfo's end-of-parameters probe, the negative tests)
  # and test_memory's cudaMalloc until the device is full.
  api=()
  case $t in test_module|test_kernel|test_elementwise_kernel|test_profiler|test_memory|test_streams|test_api_shape|test_hpp|test_graph)
    api=(--report-api-errors no);; esac
  EK_TEST_DEVICE=cuda EK_STRESS_OPS=10000 run "memcheck_$t" compute-sanitizer --tool memcheck \
    "${api[@]}" --error-exitcode 1 "$c/tests/$t"
done
for t in ${RACECHECK:-test_copy test_reduce test_softmax test_scan test_indexing test_profiler}; do
  [ -x "$c/tests/$t" ] || continue
  # racecheck loses track of launches from several host threads at once
  # ("Internal Sanitizer Error: failure to track a kernel launch"): the
  # multi-threaded test runs under memcheck only.
  EK_TEST_DEVICE=cuda run "racecheck_$t" compute-sanitizer --tool racecheck --error-exitcode 1 "$c/tests/$t" \
    --gtest_filter='-*ThreadsSharingAStream*:*Threads*:*WhileOtherThreads*'

done
fi
echo "== $pass passed, ${#failed[@]} failed: ${failed[*]:-}"
for b in bench_handles bench_ops bench_fused compare_ops python_overhead overhead_rust overhead_go overhead_rust_1 \
         overhead_go_1 quickstart_c quickstart_python custom_kernel_jit custom_kernel_jit_again \
         custom_kernel_static cuda_copy_check profile_workload col_variants; do [ -f "$OUT/$b.log" ] && { echo "--- $b"; tail -25 "$OUT/$b.log"; }; done
for f in "$OUT"/*-compare.md; do [ -f "$f" ] && { echo "--- $(basename "$f")"; cat "$f"; }; done
