#!/usr/bin/env bash
# One device session: install realify against the machine's torch, run the tests, then the GPU benchmarks.
# Usage (on the GPU machine, from the repo root): bash bench/gpu_session.sh OUTDIR [tests|random|rope|ropex|ropecode|ropeforms|productforms|fftforms|llama|fft|fftmodels|fftgraphs|fftprofile|opoverhead|ropedecode|interleaved|tp|tp8b ...]
set -u
out=${1:?outdir}; shift
# Test-only packages the machine lacks travel as wheels in build/wheels (carry it); none is required.
if ls build/wheels/*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps build/wheels/*.whl > "$out/wheels.log" 2>&1 || tail -3 "$out/wheels.log"
fi
python3 -m pip install -q --no-build-isolation --no-deps -e . > "$out/install.log" 2>&1 \
  || python3 setup.py build_ext --inplace >> "$out/install.log" 2>&1
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
python3 -c "import torch, realify; print('torch', torch.__version__, torch.cuda.get_device_name(0), 'core', realify.core_version)"
for step in "$@"; do
  echo "=== $step"
  case $step in
    tests)  # spread over the machine's cores when pytest-xdist came along
      par=$(python3 -c "import xdist" 2>/dev/null && echo "-n 12")
      # -v names each failure as it happens, so a run cut by TESTS_TIMEOUT still says which tests failed
      timeout "${TESTS_TIMEOUT:-540}" python3 -m pytest -v -rf -p no:cacheprovider $par ${TESTS_SELECT:-tests/python} \
        --ignore=tests/python/test_bench_scripts.py > "$out/tests.log" 2>&1
      grep -E "(FAILED|ERROR) " "$out/tests.log" | sort -u | tail -60; tail -3 "$out/tests.log" ;;
    rope) python3 bench/rope.py --cases prefill,decode --dtypes ${ROPE_DTYPES:-bfloat16,float32} --json "$out/rope.json" 2>&1 | grep -v Warning ;;
    ropex) python3 bench/rope.py --cases axial2d,yarn --json "$out/rope_axial_yarn.json" 2>&1 | grep -v Warning ;;
    ropecode) TORCH_LOGS=output_code python3 bench/rope.py --cases prefill --dtypes bfloat16 --warmup 1 --iters 3 > "$out/rope_code.txt" 2>&1; grep -c "@triton.jit" "$out/rope_code.txt" ;;
    productforms) python3 bench/product_forms.py --profile --json "$out/product_forms.json" 2>&1 | grep -v Warning ;;
    fftforms) python3 bench/fft_forms.py --profile --json "$out/fft_forms.json" 2>&1 | grep -v Warning ;;
    ropeforms) python3 bench/rope_forms.py --dtypes ${ROPE_DTYPES:-bfloat16} --settings ${ROPE_SETTINGS:-default,coordesc,combo} --iters 30 --json "$out/rope_forms.json" 2>&1 | grep -v Warning ;;
    fftprofile) python3 bench/fft_profile.py --models ${PROFILE_MODELS:-fno2d,mri,hyena} 2>&1 | grep -v -e Warning -e USDT ;;
    fftmodels) python3 bench/fft_models.py --json "$out/fft_models.json" 2>&1 | grep -v Warning ;;
    opoverhead) python3 bench/op_overhead.py --json "$out/op_overhead.json" 2>&1 | grep -v -i warn ;;
    ropedecode) python3 bench/rope.py --cases decode --json "$out/rope_decode.json" 2>&1 | grep -v Warning ;;
    interleaved) python3 bench/interleaved.py --json "$out/interleaved.json" 2>&1 | grep -v Warning ;;
    fftgraphs) python3 bench/fft_models.py --cudagraphs --json "$out/fft_models_graphs.json" 2>&1 | grep -v Warning ;;
    llama) python3 bench/llama.py --json "$out/llama.json" 2>&1 | grep -v Warning ;;
    fft) python3 bench/fft.py --json "$out/fft.json" 2>&1 | grep -v Warning ;;
    tp) torchrun --nproc-per-node 1 examples/llama3_tp.py --device cuda --bench 5 --json "$out/tp_nccl_ws1.json" 2>&1 | tail -30 ;;
    tp8b)  # the multi-GPU issue: every world size the machine has, Llama 3 8B shapes, then the scaling table
      n=$(python3 -c "import torch; print(torch.cuda.device_count())")
      for w in 1 2 4 8; do
        [ "$w" -le "$n" ] || break
        torchrun --nproc-per-node "$w" examples/llama3_tp.py --preset 8b --dtype bfloat16 --tol 5e-2 --bench 10 \
          --decode-steps 32 --json "$out/tp8b_ws$w.json" 2>&1 | tail -12
      done
      python3 bench/tp_scaling.py "$out"/tp8b_ws*.json --markdown ;;
    random)  # the random differential test's long run: RANDOM_PROGRAMS over RANDOM_JOBS shards, one report
      total=${RANDOM_PROGRAMS:-5000}; jobs=${RANDOM_JOBS:-15}; pids=""
      for k in $(seq 0 $((jobs - 1))); do
        n=$(( total / jobs + (k < total % jobs) ))
        OMP_NUM_THREADS=1 REALIFY_RANDOM_PROGRAMS=$n REALIFY_RANDOM_SEED=$((${RANDOM_SEED:-101} + k)) \
          REALIFY_RANDOM_REPORT="$out/rp-$k.part" timeout "${RANDOM_TIMEOUT:-540}" python3 -m pytest -q \
          -p no:cacheprovider tests/python/test_random_programs.py -k match_eager > "$out/rp-$k.log" 2>&1 &
        pids="$pids $!"
      done
      for p in $pids; do wait "$p"; done
      {
        for k in $(seq 0 $((jobs - 1))); do cat "$out/rp-$k.part" 2>/dev/null; done
        for k in $(seq 0 $((jobs - 1))); do  # a shard that stopped without its summary keeps its log's tail
          echo "shard $k: $(tail -n1 "$out/rp-$k.log")"
          grep -q "^# done" "$out/rp-$k.part" 2>/dev/null || grep -v DEBUG "$out/rp-$k.log" | tail -n 60 | sed "s/^/  [$k] /"
        done
      } > "$out/random-programs.txt"
      rm -f "$out"/rp-*.log "$out"/rp-*.part; grep -c "^# done" "$out/random-programs.txt"; grep "^shard" "$out/random-programs.txt" ;;
    *) echo "unknown step $step" ;;
  esac
done
