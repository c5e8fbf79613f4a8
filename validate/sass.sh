#!/usr/bin/env bash
# The SASS behind the bundled suite, on a GPU machine with the prebuilt warpsim binary: what ptxas
# made of each PTX instruction, where the machine-op classes of warpsim_isa::costs come from.
#
#   validate/sass.sh [BINARY] [OUTDIR]
#
#   1. static: every suite PTX through ptxas (its own .target; -v for registers, spills) and
#      cuobjdump -sass                                   -> OUTDIR/static/<dir>.sass, .ptxas.txt
#   2. probe: which ncu form reports executed instructions per SASS instruction or opcode, tried
#      on vector_add                                     -> OUTDIR/probe-<k>.csv/.log
#   3. dynamic: the first form that works, over every workload, $CHUNK per ncu process, none
#      started after $DEADLINE s                        -> OUTDIR/dynamic/chunk-<k>.csv/.log
# ncu runs with --clock-control none. Environment: NCU, PTXAS, CUOBJDUMP, CHUNK (default 8),
# DEADLINE (default 300), CHUNK_TIMEOUT (default 90).
set -u -o pipefail

BIN=${1:-target/release/warpsim}
DIR=${2:-${OUT:-./sass-out}}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
CHUNK=${CHUNK:-8}
DEADLINE=${DEADLINE:-300}
CHUNK_TIMEOUT=${CHUNK_TIMEOUT:-90}
mkdir -p "$DIR/static" "$DIR/dynamic"
TMP=$(mktemp -d)
SECONDS=0
step() { printf '\n=== [%4ds] %s\n' "$SECONDS" "$*"; }

step "1. static SASS"
for f in workloads/suite/*/*.ptx; do
  d=$(basename "$(dirname "$f")")
  arch=$(awk '/^\.target/ {gsub(",", "", $2); print $2; exit}' "$f")
  case "$arch" in sm_9*) ;; *) arch=sm_90 ;; esac
  if "$PTXAS" -arch="$arch" -v "$f" -o "$TMP/$d.cubin" 2>"$DIR/static/$d.ptxas.txt"; then
    "$CUOBJDUMP" -sass "$TMP/$d.cubin" >"$DIR/static/$d.sass" 2>&1
  else
    echo "ptxas failed on $f"; tail -3 "$DIR/static/$d.ptxas.txt"
  fi
done
echo "$(ls "$DIR"/static/*.sass | wc -l) listings"

FORMS=(
  "--section SourceCounters --page source --print-source sass --csv"
  "--metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum --print-metric-instances values --page raw --csv"
  "--section InstructionStats --page details --csv"
)
step "2. probe"
FORM=
for k in "${!FORMS[@]}"; do
  # shellcheck disable=SC2086
  timeout -k 10 60 "$NCU" --clock-control none ${FORMS[$k]} --log-file "$DIR/probe-$k.csv" \
    "$BIN" validate gpu-run --workloads vector_add --profile-pass --no-sim >"$DIR/probe-$k.log" 2>&1
  rc=$?
  lines=$(wc -l <"$DIR/probe-$k.csv" 2>/dev/null || echo 0)
  echo "form $k (${FORMS[$k]}): exit $rc, $lines lines"
  head -c 600 "$DIR/probe-$k.csv" 2>/dev/null | sed 's/^/    /'; echo
  if [ -z "$FORM" ] && [ $rc -eq 0 ] && grep -q -i 'Instructions Executed\|sass__inst_executed_per_opcode' "$DIR/probe-$k.csv" 2>/dev/null \
     && ! grep -q '==ERROR==' "$DIR/probe-$k.csv" "$DIR/probe-$k.log"; then
    FORM=${FORMS[$k]}
  fi
done
echo "chosen form: ${FORM:-none}"

if [ -n "$FORM" ]; then
  step "3. dynamic counts"
  mapfile -t NAMES < <("$BIN" workloads | awk '{print $1}')
  k=0
  for ((i = 0; i < ${#NAMES[@]}; i += CHUNK)); do
    if [ "$SECONDS" -ge "$DEADLINE" ]; then echo "deadline: from ${NAMES[$i]} on, no dynamic counts"; break; fi
    LIST=$(IFS=,; echo "${NAMES[*]:i:CHUNK}")
    t0=$SECONDS
    # shellcheck disable=SC2086
    timeout -k 10 "$CHUNK_TIMEOUT" "$NCU" --clock-control none $FORM --log-file "$DIR/dynamic/chunk-$k.csv" \
      "$BIN" validate gpu-run --workloads "$LIST" --profile-pass --no-sim >"$DIR/dynamic/chunk-$k.log" 2>&1
    echo "chunk $k ($LIST): exit $? in $((SECONDS - t0))s"
    k=$((k + 1))
  done
fi
step "done"
