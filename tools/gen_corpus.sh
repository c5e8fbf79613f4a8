#!/usr/bin/env bash
# Compile the PTX-parser corpus (isa/tests/corpus/src/*.cu) with nvcc to
# isa/tests/corpus/ptx/<stem>.<arch>[.lineinfo|.G].ptx, for every applicable target and flag set,
# then (optionally) assemble each PTX with ptxas to prove it is valid for that target.
#
# Targets by file name:   *_sm90a.cu -> sm_90a            *_sm90.cu -> sm_90, sm_90a
#                         *_sm80.cu  -> sm_80, sm_90, sm_90a   other .cu -> sm_75, sm_80, sm_90, sm_90a
# Flag sets:              (none), -lineinfo, -G
# Per-file flags:         a line `// corpus-flags: ...` in the .cu is added to every compile of it.
#
# nvcc for a target:      -arch=sm_XX -ptx  (nvcc's shorthand: virtual arch compute_XX, PTX `.target sm_XX`);
#                         sm_90a: -arch=sm_90a -ptx gives `.target sm_90a` (arch-specific features enabled,
#                         __CUDA_ARCH_FEAT_SM90_ALL defined).
#
# Environment:
#   NVCC=path           nvcc to use (default: nvcc on PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin)
#   JOBS=N              parallel compiles (default: number of CPUs)
#   PTXAS_CHECK=0|1     also run `ptxas -arch=sm_XX -c` on each PTX (default 1)
#   ONLY="a b"          only these stems
#   FLAGSETS="none lineinfo G"   subset of flag sets
#   CORPUS_BUILD_DIR    where sources are copied before compiling (default /tmp/warpsim-corpus-build/src):
#                       a fixed path makes the output independent of where the repo lives (nvcc hashes the
#                       source path into anonymous-namespace names and writes it into .file directives)
#   OUT                 if set: log -> $OUT/corpus_log.txt, summary -> $OUT/corpus_summary.txt,
#                       PTX -> $OUT/corpus_ptx.tar.gz; if unset, log and summary go to isa/tests/corpus/
#                       (git-ignored)
# Exit status: 0 if every combination compiled (and assembled), 1 otherwise; it never stops early.
set -u

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="$REPO/isa/tests/corpus/src"
DST="$REPO/isa/tests/corpus/ptx"
BUILD="${CORPUS_BUILD_DIR:-/tmp/warpsim-corpus-build/src}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 4)}"
PTXAS_CHECK="${PTXAS_CHECK:-1}"
FLAGSETS="${FLAGSETS:-none lineinfo G}"
ONLY="${ONLY:-}"

if [ -z "${NVCC:-}" ]; then
    if command -v nvcc >/dev/null 2>&1; then NVCC="$(command -v nvcc)"
    elif [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then NVCC="$CUDA_HOME/bin/nvcc"
    elif [ -x /usr/local/cuda/bin/nvcc ]; then NVCC=/usr/local/cuda/bin/nvcc
    else echo "gen_corpus.sh: no nvcc found (set NVCC=...)" >&2; exit 2
    fi
fi
PTXAS="$(dirname "$NVCC")/ptxas"
[ -x "$PTXAS" ] || PTXAS="$(command -v ptxas 2>/dev/null || true)"

WORK="$(mktemp -d /tmp/gen_corpus.XXXXXX)"
LOG="$WORK/corpus_log.txt"
mkdir -p "$DST" "$WORK/status"
case "$BUILD" in
    /|/tmp|/tmp/|"$HOME"|"$REPO"*|"") echo "gen_corpus.sh: refusing CORPUS_BUILD_DIR=$BUILD" >&2; exit 2 ;;
esac
rm -rf "$BUILD" && mkdir -p "$BUILD" && cp "$SRC"/*.cu "$BUILD"/
[ -d "$SRC/include" ] && cp -r "$SRC/include" "$BUILD"/

{
    echo "# gen_corpus.sh  $(date -u +%Y-%m-%dT%H:%M:%SZ)  host=$(hostname)"
    echo "# repo=$REPO  build_dir=$BUILD  jobs=$JOBS  ptxas_check=$PTXAS_CHECK"
    echo "# nvcc=$NVCC"
    "$NVCC" --version 2>&1 | sed 's/^/#   /'
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | sed 's/^/# gpu: /'
    fi
} >"$LOG"

archs_for() {
    case "$1" in
        *_sm90a) echo "sm_90a" ;;
        *_sm90) echo "sm_90 sm_90a" ;;
        *_sm80) echo "sm_80 sm_90 sm_90a" ;;
        *) echo "sm_75 sm_80 sm_90 sm_90a" ;;
    esac
}

# One compile (+ optional ptxas). Writes WORK/status/<name> = "ptx_status sass_status seconds"
# and WORK/status/<name>.log with the commands and their output.
compile_one() {
    local stem="$1" arch="$2" fs="$3"
    local suffix="" fflag=() pflag=()
    case "$fs" in
        lineinfo) suffix=".lineinfo"; fflag=(-lineinfo) ;;
        G) suffix=".G"; fflag=(-G); pflag=(-g) ;;
    esac
    local name="$stem.$arch$suffix.ptx"
    local extra
    extra="$(sed -n 's|^// corpus-flags:||p' "$BUILD/$stem.cu" | head -n1)"
    # shellcheck disable=SC2206
    local cmd=("$NVCC" -std=c++17 "-arch=$arch" ${extra} "${fflag[@]}" -ptx -o "$WORK/out/$name" "$stem.cu")
    local t0 t1 st="ok" sass="-"
    t0=$(date +%s.%N)
    {
        echo "=== $name"
        echo "\$ (cd $BUILD && ${cmd[*]})"
    } >"$WORK/status/$name.log"
    if (cd "$BUILD" && "${cmd[@]}") >>"$WORK/status/$name.log" 2>&1; then
        cp "$WORK/out/$name" "$DST/$name"
        if [ "$PTXAS_CHECK" = 1 ] && [ -n "$PTXAS" ]; then
            local pcmd=("$PTXAS" "-arch=$arch" -c "${pflag[@]}" -o /dev/null "$WORK/out/$name")
            echo "\$ ${pcmd[*]}" >>"$WORK/status/$name.log"
            if "${pcmd[@]}" >>"$WORK/status/$name.log" 2>&1; then sass="ok"; else sass="FAIL"; fi
        fi
    else
        st="FAIL"
        rm -f "$DST/$name"
    fi
    t1=$(date +%s.%N)
    echo "$st $sass $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" >"$WORK/status/$name"
}

mkdir -p "$WORK/out"
stems=()
for f in "$BUILD"/*.cu; do
    s="$(basename "$f" .cu)"
    if [ -n "$ONLY" ] && ! [[ " $ONLY " == *" $s "* ]]; then continue; fi
    stems+=("$s")
done

# Run all combinations, at most $JOBS at a time.
running=0
for s in "${stems[@]}"; do
    for a in $(archs_for "$s"); do
        for fs in $FLAGSETS; do
            compile_one "$s" "$a" "$fs" &
            running=$((running + 1))
            if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
        done
    done
done
wait

# Collect, in a fixed order: log + summary table.
SUM="$WORK/corpus_summary.txt"
nok=0; nfail=0; nsass=0
cols=()
for a in sm_75 sm_80 sm_90 sm_90a; do for fs in $FLAGSETS; do cols+=("$a/$fs"); done; done
{
    printf '%-22s' "file"
    for c in "${cols[@]}"; do printf ' %-15s' "$c"; done
    printf '\n'
} >"$SUM"
for s in "${stems[@]}"; do
    line="$(printf '%-22s' "$s")"
    for c in "${cols[@]}"; do
        a="${c%/*}"; fs="${c#*/}"
        case "$fs" in none) suf="" ;; *) suf=".$fs" ;; esac
        n="$s.$a$suf.ptx"
        if [ -f "$WORK/status/$n" ]; then
            read -r st sass secs <"$WORK/status/$n"
            cat "$WORK/status/$n.log" >>"$LOG"
            echo "--- result: ptx=$st ptxas=$sass ${secs}s" >>"$LOG"
            if [ "$st" = ok ]; then nok=$((nok + 1)); else nfail=$((nfail + 1)); fi
            [ "$sass" = FAIL ] && nsass=$((nsass + 1))
            cell="$st"; [ "$sass" != "-" ] && cell="$st/$sass"
        else
            cell="."
        fi
        line+="$(printf ' %-15s' "$cell")"
    done
    echo "$line" >>"$SUM"
done
total_bytes=$(cat "$DST"/*.ptx 2>/dev/null | wc -c)
{
    echo
    echo "cell = nvcc -ptx result[/ptxas result]; '.' = not applicable to that target"
    echo "$nok compiled, $nfail failed to compile, $nsass failed ptxas; $(ls "$DST"/*.ptx 2>/dev/null | wc -l) PTX files, $total_bytes bytes in $DST"
} >>"$SUM"
cat "$SUM" >>"$LOG"
cat "$SUM"

if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    cp "$LOG" "$OUT/corpus_log.txt"
    cp "$SUM" "$OUT/corpus_summary.txt"
    tar -C "$REPO/isa/tests/corpus" -czf "$OUT/corpus_ptx.tar.gz" ptx
    echo "wrote $OUT/corpus_log.txt, $OUT/corpus_summary.txt, $OUT/corpus_ptx.tar.gz"
else
    # both git-ignored; isa/tests/corpus/nvcc_summary.txt is the committed copy of a full run's table
    cp "$LOG" "$REPO/isa/tests/corpus/corpus_log.txt"
    cp "$SUM" "$REPO/isa/tests/corpus/corpus_summary.txt"
    echo "log: $REPO/isa/tests/corpus/corpus_log.txt, table: $REPO/isa/tests/corpus/corpus_summary.txt"
fi
rm -rf "$WORK"
[ "$nfail" -eq 0 ] && [ "$nsass" -eq 0 ]
