#!/usr/bin/env bash
# One device call: the Hopper steps 11-16 and cuBLAS at the four sizes of issue #17 in one run,
# then every value of the build parameter "stages" of the ring kernels (ampere_ldmatrix,
# steps 13-16), to check that each default is the fastest. Binaries: build/devcarry
# (Release, no GUI), as scripts/device-check.sh uses them.
B=build/devcarry
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
IDS="hopper_tma_wgmma_64 hopper_tile_128 hopper_producer_consumer hopper_two_consumers hopper_persistent hopper_fewer_arrivals"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope devices; } > $OUT/env.txt 2>&1
timeout 240 $B/gemmscope bench $IDS --sizes 2048,4096,8192,4096x1024x8192 --reps 20 --json $OUT/ladder.json > $OUT/ladder.log 2>&1
echo "ladder rc=$?" >> $OUT/ladder.log
sweep() {  # kernel sizes values...
  local id=$1 sizes=$2; shift 2
  for v in "$@"; do
    timeout 60 $B/gemmscope bench $id --sizes $sizes --reps 20 --param stages=$v --json $OUT/stages-$id-$v.json 2>&1 | grep -v "^\[" | grep -v "^$"
  done
}
{ sweep ampere_ldmatrix 4096 2 3 4 5 6
  sweep hopper_producer_consumer 4096,8192 2 3 4 5 6
  sweep hopper_two_consumers 4096,8192 2 3 4
  sweep hopper_persistent 4096,8192 2 3 4
  sweep hopper_fewer_arrivals 4096,8192 2 3 4; } > $OUT/stages.log 2>&1
cd $OUT && tar czf stages-json.tgz stages-*.json && rm stages-*.json && cd - > /dev/null
grep -v "^$" $OUT/ladder.log | tail -30; grep -v "NVIDIA\|^kernel " $OUT/stages.log
