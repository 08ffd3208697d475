#!/usr/bin/env bash
# Issue 17 on a machine with several GPUs (nvidia-h100-x2): builds nothing.
# Runs over the tree the lead carried (.carry/, laid out by scripts/pack_gpu.sh:
# lib/libek.so.0, tests/test_comm, examples/data_parallel, rust/comm-*,
# go/ek.test): the multi-GPU C tests, the Python, Rust and Go communicator
# tests, both data-parallel examples, then bench/nccl_bench.py and
# bench/peer_copy.py. Writes four files under $OUT: tests.log, bench.log,
# nccl.json, peer_copy.json. About 4-6 minutes on 2 H100s.
#
#   OUT=/tmp/out bash scripts/gpu_multi.sh
set -uo pipefail
OUT=${OUT:-/tmp/ek-out}; mkdir -p "$OUT"
c=.carry
export LD_LIBRARY_PATH="$PWD/$c/lib:${LD_LIBRARY_PATH:-}"
export EK_TEST_DEVICE=cuda EK_REQUIRE_GPU=1 EK_LIBRARY="$PWD/$c/lib/libek.so.0"
# NVLink multicast (NVLS) stays off on shared machines: a program using it can
# take the host's GPUs out of service (the device machines' rules).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export PYTHONPATH="$PWD/bindings/python" PYTHONUNBUFFERED=1 EK_KERNEL_CACHE_DIR=$(mktemp -d)
T="$OUT/tests.log"; B="$OUT/bench.log"; : > "$T"; : > "$B"
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
  nvidia-smi topo -m; ls -l /usr/lib/x86_64-linux-gnu/libnccl.so* 2>&1; } >> "$T"
pass=0; failed=()
run() {  # log, name, limit_s, command...
  local log=$1 name=$2 limit=$3; shift 3
  echo "===== $name: $*" >> "$log"
  if timeout "$limit" "$@" >> "$log" 2>&1; then pass=$((pass+1)); echo "PASS $name"
  else failed+=("$name"); echo "FAIL $name (rc $?; see $(basename "$log"))"; fi
}
run "$T" test_comm 420 "$c/tests/test_comm"
run "$T" test_copy 120 "$c/tests/test_copy"
run "$T" pytest_distributed 180 python3 -m pytest -q bindings/python/tests/test_distributed.py
for b in "$c"/rust/comm*; do [ -x "$b" ] && run "$T" "rust_$(basename "$b")" 60 "$b"; done
[ -x "$c/go/ek.test" ] && run "$T" go_comm 60 "$c/go/ek.test" -test.count=1 -test.v \
  -test.run 'Comm|Nccl|AllReduceOverEveryGPU'
run "$T" data_parallel_c 60 "$c/examples/data_parallel"
run "$T" data_parallel_py 60 python3 examples/python/data_parallel.py
run "$B" nccl_bench 300 python3 bench/nccl_bench.py --json "$OUT/nccl.json"
run "$B" peer_copy 60 python3 bench/peer_copy.py --json "$OUT/peer_copy.json"
echo "passed $pass, failed ${#failed[@]}: ${failed[*]:-none}" | tee -a "$T"
grep -A30 '^[0-9]* ranks, float32' "$B" | head -30
grep -A8 '^peer copy' "$B"
[ ${#failed[@]} -eq 0 ]
