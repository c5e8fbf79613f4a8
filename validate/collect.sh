#!/usr/bin/env bash
# Collect an H200 dataset on a GPU machine with the prebuilt warpsim binary (builds nothing).
#
#   validate/collect.sh [BINARY] [OUTDIR]
#
# BINARY defaults to target/release/warpsim, OUTDIR to $OUT (else ./validate-out). Steps, each
# printed with its wall time:
#   0. environment: nvidia-smi, ncu --version
#   1. warpsim validate gpu-run --all: outputs vs reference and simulator, 20 timed launches
#      after an L2 flush, driver attributes                           -> OUTDIR/run.json, run.log
#   2. metric probe: ncu on vector_add with the full metric list; if ncu refuses it, each
#      optional group is tried on its own and only the groups that work are kept
#   3. ncu over the profile pass (one launch per workload, no timing, no simulator), in chunks
#      of $CHUNK workloads, one process each: a chunk that fails or times out loses only its
#      own counters; no chunk starts after $DEADLINE s    -> OUTDIR/ncu-K.csv, profile-K.json/.log
#   4. warpsim validate merge                  -> OUTDIR/data/h200/<date>.json and .csv
# A multi-launch workload ([[launch]] sequence) is one record like any other: gpu-run times the
# whole sequence (inputs it writes restored before each run), the profile pass runs it once, ncu
# profiles each of its kernel launches, and merge sums them into the record (ratios such as
# lts__t_sector_hit_rate.pct recomputed from lts__t_sectors.sum, kept when ncu accepts its group).
# ncu runs with --clock-control none (the GPU's own clocks, as in the timed run), the default
# --cache-control all (caches flushed before each replay pass) and --print-units base.
# Environment: WORKLOADS (comma-separated names; default: every bundled workload), NCU (ncu binary), CHUNK (default 8), DEADLINE (default 400), CHUNK_TIMEOUT
# (default 120), RUN_TIMEOUT (default 240), REPS (default 20).
set -u -o pipefail

BIN=${1:-target/release/warpsim}
DIR=${2:-${OUT:-./validate-out}}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
CHUNK=${CHUNK:-8}
DEADLINE=${DEADLINE:-400}
CHUNK_TIMEOUT=${CHUNK_TIMEOUT:-120}
RUN_TIMEOUT=${RUN_TIMEOUT:-240}
REPS=${REPS:-20}
WORKLOADS=${WORKLOADS:-}
if [ -n "$WORKLOADS" ]; then SELECT=(--workloads "$WORKLOADS"); else SELECT=(--all); fi
DATE=$(date -u +%F)
mkdir -p "$DIR"
SECONDS=0
step() { printf '\n=== [%4ds] %s\n' "$SECONDS" "$*"; }

# Metrics: every counter of the simulator's registry (`warpsim metrics`, sim/src/counters.rs;
# a test in validate/tests/counters.rs keeps this list a superset) and more. BASE must work (standard names on sm_90); the groups are extras kept only if ncu
# accepts them. Replays: ncu needs several passes for this many counters; every pass replays
# one short kernel, so the cost is mostly per kernel, not per metric.
BASE=gpc__cycles_elapsed.max,gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,\
dram__bytes_read.sum,dram__bytes_write.sum,\
lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
EXTRA=(
  "smsp__cycles_active.avg,sm__inst_executed.avg.per_cycle_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct"
  "sm__maximum_warps_per_active_cycle_pct,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,launch__waves_per_multiprocessor"
  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
  "lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_atom.sum,lts__t_requests_srcunit_tex_op_red.sum"
  "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_local_op_st.sum"
  "l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"
  "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum"
  "lts__t_sectors_srcunit_ltcfabric.sum,lts__t_requests_srcunit_ltcfabric.sum,lts__d_sectors_fill_device.sum,lts__d_sectors_fill_sysmem.sum"
  "lts__t_sectors.sum,lts__t_requests.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum"
  "lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex.sum"
  "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum,smsp__sass_thread_inst_executed_op_hmul_pred_on.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"
  "$(for s in long_scoreboard short_scoreboard barrier membar mio_throttle lg_throttle math_pipe_throttle wait \
      not_selected selected no_instruction branch_resolving dispatch_stall drain imc_miss tex_throttle sleeping misc; do
      printf 'smsp__average_warps_issue_stalled_%s_per_issue_active.ratio,' "$s"; done | sed 's/,$//')"
)
NCU_FLAGS=(--clock-control none --cache-control all --replay-mode kernel --print-units base --print-kernel-base function --csv)

step "environment ($DIR, binary $BIN, ncu $NCU)"
if [ ! -x "$BIN" ]; then echo "error: $BIN is not an executable"; exit 2; fi
SMI=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader 2>&1 | head -1)
NCUV=$("$NCU" --version 2>&1 | tail -1)
echo "nvidia-smi: $SMI"
echo "ncu: $NCUV"
"$BIN" --version

step "1. timed run: gpu-run ${SELECT[*]} --reps $REPS"
timeout -k 10 "$RUN_TIMEOUT" "$BIN" validate gpu-run "${SELECT[@]}" --reps "$REPS" --out "$DIR/run.json" 2>&1 | tee "$DIR/run.log"
echo "gpu-run exit status ${PIPESTATUS[0]} after ${SECONDS}s"
if [ ! -s "$DIR/run.json" ]; then echo "error: no $DIR/run.json; stopping"; exit 1; fi

# probe LIST NAME: does ncu collect LIST on vector_add?
probe() {
  local log="$DIR/probe-$2.log" csv="$DIR/probe-$2.csv"
  if [ "$SECONDS" -ge "$DEADLINE" ]; then echo "probe $2: skipped (deadline)"; return 1; fi
  timeout -k 10 60 "$NCU" "${NCU_FLAGS[@]}" --metrics "$1" --log-file "$csv" \
    "$BIN" validate gpu-run --workloads vector_add --profile-pass --no-sim >"$log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ] && grep -q '"gpc__cycles_elapsed.max"' "$csv" 2>/dev/null && ! grep -q '==ERROR==' "$csv" "$log"; then
    echo "probe $2: ok ($(grep -o '[0-9]* passes' "$csv" "$log" 2>/dev/null | head -1))"
    return 0
  fi
  echo "probe $2: refused (exit $rc):"; grep -h '==ERROR==\|error' "$csv" "$log" 2>/dev/null | head -5
  return 1
}

step "2. metric probe"
FULL=$BASE
for g in "${EXTRA[@]}"; do FULL="$FULL,$g"; done
if probe "$FULL" full; then
  METRICS=$FULL
elif probe "$BASE" base; then
  METRICS=$BASE
  k=0
  for g in "${EXTRA[@]}"; do
    if probe "$BASE,$g" "group$k"; then METRICS="$METRICS,$g"; fi
    k=$((k + 1))
  done
elif probe gpc__cycles_elapsed.max,gpu__time_duration.sum,smsp__inst_executed.sum minimal; then
  METRICS=gpc__cycles_elapsed.max,gpu__time_duration.sum,smsp__inst_executed.sum
else
  METRICS=
  echo "ncu collects nothing here: the dataset will have times but no counters"
fi
echo "metrics ($(tr ',' '\n' <<<"$METRICS" | grep -c .)): $METRICS"

MERGE_ARGS=()
if [ -n "$METRICS" ]; then
  step "3. ncu over the profile pass, $CHUNK workloads per process"
  if [ -n "$WORKLOADS" ]; then IFS=, read -r -a NAMES <<<"$WORKLOADS"; else mapfile -t NAMES < <("$BIN" workloads | awk '{print $1}'); fi
  k=0
  for ((i = 0; i < ${#NAMES[@]}; i += CHUNK)); do
    if [ "$SECONDS" -ge "$DEADLINE" ]; then
      echo "deadline ${DEADLINE}s reached: workloads from ${NAMES[$i]} on get no counters"
      break
    fi
    LIST=$(IFS=,; echo "${NAMES[*]:i:CHUNK}")
    t0=$SECONDS
    timeout -k 10 "$CHUNK_TIMEOUT" "$NCU" "${NCU_FLAGS[@]}" --metrics "$METRICS" --log-file "$DIR/ncu-$k.csv" \
      "$BIN" validate gpu-run --workloads "$LIST" --profile-pass --no-sim --out "$DIR/profile-$k.json" >"$DIR/profile-$k.log" 2>&1
    rc=$?
    echo "chunk $k ($LIST): exit $rc in $((SECONDS - t0))s"
    grep -h '=> ' "$DIR/profile-$k.log" | sed 's/^/    /'
    if [ -s "$DIR/profile-$k.json" ] && [ -s "$DIR/ncu-$k.csv" ]; then
      MERGE_ARGS+=(--profile "$DIR/profile-$k.json" --ncu "$DIR/ncu-$k.csv")
    else
      echo "    chunk $k left no dataset or CSV: its workloads get no counters"; tail -5 "$DIR/profile-$k.log"
    fi
    k=$((k + 1))
  done
fi

step "4. merge"
OUTFILE="$DIR/data/h200/$DATE.json"
"$BIN" validate merge --run "$DIR/run.json" "${MERGE_ARGS[@]}" --out "$OUTFILE" \
  --note "nvidia-smi (name, driver, clocks.sm, clocks.max.sm, clocks.mem, temperature, power): $SMI" \
  --note "ncu: $NCUV; flags: ${NCU_FLAGS[*]}" --note "metrics: $METRICS" --note "collect.sh chunk $CHUNK, reps $REPS" \
  2>&1 | tee "$DIR/merge.log"
echo "merge exit status ${PIPESTATUS[0]}"
step "done: $OUTFILE (+ .csv); logs and raw files in $DIR"
