#!/usr/bin/env bash
# gpu_ab.sh -- on the GPU machine: tests, sanitizers and A/B benchmarks of
# packed builds (bench/gpu_pack.sh), in one call of the device tool.
#
# Here: pack each build (BUILD=/tmp/bX bench/gpu_pack.sh /tmp/pkX), then
# `tar cf - pkX | xz -6 > DIR/pkX.txz` (DIR git-excluded, ~6 MB a pack),
# copy ../shared/data and ../shared/tools into DIR/shared, carry DIR.
# There: `DIR=.devdata JOBS="pkB:test_cuda_lossy pkB:test_cuda_huffman:m"
# BPKS="pkA pkB" bash bench/gpu_ab.sh`. Output: a line per job, then the
# benchmark logs (and the logs of failed jobs) under $OUT.
#
# Environment: DIR (the packs and shared/, default .devdata); JOBS: items
# pack:program[:mode] run in parallel, mode q (SCZ_TEST_QUICK=1), m
# (memcheck, QUICK=1), r (racecheck, QUICK=2), k / k2 (racecheck of the
# kernels named $RK / $RK2 only), s (synccheck, QUICK=1), none: in full;
# ST (seconds per sanitizer, default 400); BPKS: packs benchmarked one
# after the other (scz_bench_gpu on the three large inputs; LOSSY bounds,
# HMI Mi of u16 codes for the huffman rows, BEXTRA more options, REP2
# rounds, WONLY=1 wmag only); PBPKS: packs whose lossy phases are printed
# (SCZ_GPU_PROFILE=1; PFILES, PLOSSY).
set -u
D=$(cd "${DIR:-.devdata}" && pwd)
mkdir -p /tmp/w; cd /tmp/w
for f in "$D"/pk*.txz; do xz -dc "$f" | tar xf -; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | tee $OUT/gpu.txt
L=/tmp/large
python3 "$D/shared/tools/make-large-inputs.py" $L > $OUT/large.log 2>&1 &
LP=$!
export SCZ_TEST_DATA_DIR="$D/shared/data" SCZ_DATA_DIR="$D/shared/data"
ST=${ST:-400}
pids=(); names=()
for j in ${JOBS:-}; do
  IFS=: read -r pk t mode <<<"$j"
  log=/tmp/w/log_${pk}_${t}_${mode:-f}.txt
  case "${mode:-}" in
    q) c="SCZ_TEST_QUICK=1 timeout ${ST} ./$pk/run.sh $t" ;;
    m) c="SCZ_TEST_QUICK=1 timeout ${ST} compute-sanitizer --tool memcheck --error-exitcode 9 ./$pk/run.sh $t" ;;
    r) c="SCZ_TEST_QUICK=2 timeout ${ST} compute-sanitizer --tool racecheck --error-exitcode 9 ./$pk/run.sh $t" ;;
    k) c="SCZ_TEST_QUICK=2 timeout ${ST} compute-sanitizer --tool racecheck --kernel-name kns=$RK --error-exitcode 9 ./$pk/run.sh $t" ;;
    k2) c="SCZ_TEST_QUICK=2 timeout ${ST} compute-sanitizer --tool racecheck --kernel-name kns=$RK2 --error-exitcode 9 ./$pk/run.sh $t" ;;
    s) c="SCZ_TEST_QUICK=1 timeout ${ST} compute-sanitizer --tool synccheck --error-exitcode 9 ./$pk/run.sh $t" ;;
    *) c="./$pk/run.sh $t" ;;
  esac
  ( export PATH=$PATH:/usr/local/cuda/bin; s=$(date +%s); bash -c "$c" > $log 2>&1; rc=$?; echo "rc=$rc t=$(( $(date +%s)-s ))s" >> $log ) &
  pids+=($!); names+=("$j")
done
for i in "${!pids[@]}"; do
  wait ${pids[$i]}
  log=/tmp/w/log_$(echo "${names[$i]}" | awk -F: '{print $1"_"$2"_"($3==""?"f":$3)}').txt
  r=$(tail -1 $log)
  echo "JOB ${names[$i]}: $r | $(grep -aE 'checks|passed|failed|ERROR SUMMARY|Hazard|RACECHECK SUMMARY' $log | tail -2 | tr '\n' ' ')"
  case "$r" in rc=0*) ;; *) cp $log $OUT/ 2>/dev/null;; esac
done
wait $LP
F="--file $L/tiled_wmag_512x512x512.f32 --file $L/tiled_mpas_67108864.f64 --file $L/tiled_pressure_8192x8192.f64"
[ -n "${WONLY:-}" ] && F="--file $L/tiled_wmag_512x512x512.f32"
for r in $(seq 1 ${REP2:-1}); do
for pk in ${BPKS:-}; do
  ./$pk/run.sh scz_bench_gpu $F --reps 10 --warmup 2 --lossy ${LOSSY:-1e-2,1e-3,1e-4} --huffman ${HMI:-0} ${BEXTRA:-} --no-nvcomp > /tmp/w/bench_${pk}_$r.txt 2>&1
  echo "== BENCH $pk round $r"; grep -aE "copy|lossy|huff|ndzip|gfc|GB/s" /tmp/w/bench_${pk}_$r.txt | grep -av "^#" | head -40
  cp /tmp/w/bench_${pk}_$r.txt $OUT/
done; done
for pk in ${PBPKS:-}; do
  for f in ${PFILES:-tiled_wmag_512x512x512.f32}; do
  SCZ_GPU_PROFILE=1 ./$pk/run.sh scz_bench_gpu --file $L/$f --reps 3 --warmup 1 --lossy ${PLOSSY:-1e-3} --huffman 0 --no-nvcomp > /tmp/w/prof_${pk}.txt 2>&1
  echo "== PROFILE $pk $f"; grep -a "profile" /tmp/w/prof_${pk}.txt | sort | uniq -c | sort -rn | head -20
  done
done
