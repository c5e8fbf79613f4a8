//! `ArchConfig`: every parameter of the modelled GPU, with its unit, in one serde struct.
//!
//! Presets live in `sim/presets/<name>.toml` (embedded in the binary); every number there carries
//! its source in a comment. Overrides use the preset's own key paths (`--set l2.size_kib=51200`)
//! and are checked: an unknown key, a value of the wrong type or a value out of range is an error
//! naming the key path, before anything runs.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use warpsim_isa::costs::{Class, CostTable};

/// Warp scheduling policy of a sub-partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchedulerPolicy {
    /// Loose round robin: the next ready warp after the last issued one.
    Lrr,
    /// Greedy then oldest: keep issuing the same warp until it stalls, then the oldest ready one.
    Gto,
    /// Two-level: a small active set scheduled round robin; warps stalled on long-latency
    /// operations are swapped out for pending ones.
    TwoLevel,
}

/// Coalescing rules of the load/store unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Coalescing {
    /// Compute capability 1.0/1.1: per half-warp, one transaction only when the k-th thread
    /// accesses the k-th word of an aligned segment; otherwise one transaction per thread.
    HalfWarpStrict,
    /// Compute capability 1.2/1.3: per half-warp, one transaction per 32/64/128-byte segment touched,
    /// shrunk to the smallest segment covering the used bytes.
    HalfWarpSegments,
    /// Fermi and later: per warp, the 128-byte lines and 32-byte sectors touched.
    Sectors,
}

/// A functional-unit pipeline class: warp instructions it accepts per cycle (per sub-partition)
/// and the dependent-issue latency of its results.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pipe {
    /// Lanes processed per cycle per sub-partition; a warp instruction occupies the pipe for
    /// `32 / lanes` cycles (lanes, ≥ 1).
    pub lanes: u32,
    /// Cycles from issue until a dependent instruction may issue (cycles).
    pub latency: u32,
}

/// Which generation-specific features the architecture has (instructions using missing features
/// are rejected with the first generation that has them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Features {
    /// Warp shuffles (`shfl`), Kepler+.
    pub shuffle: bool,
    /// `vote.ballot`/`__syncthreads_count` style collectives, Fermi+.
    pub warp_vote: bool,
    /// Global/shared atomics on 64-bit and floats (Fermi+ for float add on global).
    pub float_atomics: bool,
    /// Warp-level matrix instructions (`wmma`, `mma.sync`), Volta+.
    pub tensor_cores: bool,
    /// `ldmatrix`, Turing+.
    pub ldmatrix: bool,
    /// `cp.async` (Ampere asynchronous copies) and `mbarrier`, Ampere+.
    pub cp_async: bool,
    /// `redux.sync`, Ampere+.
    pub redux: bool,
    /// TMA (`cp.async.bulk*`), clusters and distributed shared memory, `wgmma`, Hopper.
    pub tma: bool,
    pub clusters: bool,
    pub wgmma: bool,
    /// Global loads cached in L1 (false: Tesla, which has no L1 for global data).
    pub l1_caches_global: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clock {
    /// SM (core) clock under load (MHz). Simulated cycles are SM cycles.
    pub sm_mhz: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sm {
    /// Streaming multiprocessors (count).
    pub count: u32,
    /// Graphics processing clusters the SMs are grouped in (count); clusters of CTAs are
    /// co-scheduled within one GPC.
    pub gpcs: u32,
    /// SMs in each GPC, in the CTA dispatcher's GPC order, used when it has `gpcs` entries
    /// summing to `count`; else (empty, or a swept `count`) `count` split evenly (count).
    pub gpc_sms: Vec<u32>,
    /// SMs per texture processing cluster, the unit a partly filled wave of CTAs is spread over
    /// one at a time (count).
    pub sms_per_tpc: u32,
    /// SMs at the head of GPC 0 that the dispatcher serves one CTA each before it splits the
    /// rest of a partly filled wave over the GPCs, at most GPC 0's SMs (count).
    pub lone_sms: u32,
    /// Sub-partitions (processing blocks) per SM, each with its own scheduler (count).
    pub sub_partitions: u32,
    /// Warp instructions each sub-partition's scheduler issues per cycle (count).
    pub issue_width: u32,
    /// Machine code: banks of the register file, one read per bank per cycle: a math
    /// instruction whose source registers need more reads of one bank holds its sub-partition's
    /// dispatch a cycle per further read; 0: no bank conflicts (count).
    pub register_banks: u32,
    /// Resident warps per SM (count).
    pub max_warps: u32,
    /// Resident CTAs per SM (count).
    pub max_ctas: u32,
    /// Resident threads per SM (count).
    pub max_threads: u32,
    /// 32-bit registers per SM (count).
    pub registers: u32,
    /// Register allocation unit per warp (registers × 32 lanes are allocated in multiples of this
    /// many registers per thread… expressed as registers per warp, e.g. 256).
    pub reg_alloc_unit: u32,
    /// Maximum registers per thread (count).
    pub max_regs_per_thread: u32,
    /// Shared memory per SM at the largest carve-out (KiB).
    pub smem_kib: u32,
    /// Shared memory one CTA may use (KiB).
    pub smem_per_cta_kib: u32,
    /// Shared-memory carve-outs the driver picks from (KiB, ascending); empty: fixed `smem_kib`.
    pub smem_carveouts_kib: Vec<u32>,
    /// Shared memory reserved by the system per resident CTA (bytes; 1024 on Ampere+).
    pub smem_reserved_per_cta: u32,
    /// Shared-memory allocation granularity (bytes).
    pub smem_alloc_unit: u32,
    /// Unified L1 + shared capacity (KiB); the L1 gets what the carve-out leaves.
    pub unified_l1_kib: u32,
    pub scheduler: SchedulerPolicy,
    /// Active-set size of the two-level scheduler (warps per sub-partition).
    pub two_level_active: u32,
    /// Cycles an SM takes to launch one CTA; an SM launches its CTAs one at a time (cycles).
    pub cta_launch_latency: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pipes {
    pub fp32: Pipe,
    pub int: Pipe,
    /// Integer multiply / multiply-add (IMAD) when it is a separate or slower path.
    pub imul: Pipe,
    pub fp64: Pipe,
    pub fp16: Pipe,
    /// Special-function unit (MUFU: rcp, sqrt approximations, sin, ex2, lg2 …).
    pub sfu: Pipe,
    /// Conversions (`cvt`, often on the SFU/XU path).
    pub conv: Pipe,
    /// Moves, selects, predicates and other simple ALU work.
    pub alu: Pipe,
    /// Branches and other control (the branch unit).
    pub branch: Pipe,
    /// Warp-level shuffles, votes, reductions through the MIO.
    pub warp: Pipe,
    /// Load/store unit address generation (lanes = addresses per cycle).
    pub lsu: Pipe,
    /// Tensor core: `lanes` is unused (see `tensor`), `latency` of `mma.sync` m16n8k16.
    pub tensor: Pipe,
    /// Integer adds issue to the IMAD pipe when the INT pipe is busy (Volta and later: ptxas
    /// emits `add` as IADD3 or IMAD.IADD to balance the two).
    pub iadd_on_imad: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tensor {
    /// Dense FP16 multiply-accumulates per cycle per SM (count).
    pub fp16_fma_per_cycle: u32,
    /// `wgmma` m64nNk16 completion latency: `base + N / n_divisor` (cycles).
    pub wgmma_base_latency: u32,
    pub wgmma_n_divisor: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedMem {
    /// Banks (count): 16 on Tesla, 32 since Fermi.
    pub banks: u32,
    /// Bank width (bytes): 4, or 8 on Kepler.
    pub bank_bytes: u32,
    /// Load-to-use latency without conflicts (cycles).
    pub latency: u32,
    /// Extra cycles per additional conflict wavefront (cycles).
    pub wavefront_cycles: u32,
    /// Cycles each bank takes per access: a wavefront leaves the banks this often (CC 1.x and
    /// 2.x: 32 bits per two cycles; 1 from Kepler on) (cycles).
    pub bank_cycles: u32,
    /// Bytes per cycle the SM's shared-memory data path moves for 8- and 16-byte accesses; at
    /// or above a row of banks (`banks × bank_bytes`), the banks alone set the rate (bytes/cycle).
    pub wide_bytes_per_cycle: u32,
    /// Bank conflicts are evaluated per half-warp (Tesla) instead of per warp.
    pub half_warp: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct L1 {
    /// Bytes the L1 fills, and its data stage moves, per sector: 32, or a coarser block of the
    /// coalescer's 32-byte sectors (Fermi's unsectored 128-byte lines) (bytes).
    pub sector: u32,
    /// Associativity (ways).
    pub assoc: u32,
    /// Hit latency, load to use (cycles).
    pub latency: u32,
    /// Miss slots per SM: requests whose data comes back (loads, atomics) in flight at once; a
    /// global or local load or atomic issues only while one is free (count).
    pub mshrs: u32,
    /// Sectors the L1 returns per cycle (count).
    pub sectors_per_cycle: u32,
    /// Lines the L1 looks up per cycle: a warp access touching many lines takes one tag
    /// lookup each (count).
    pub lines_per_cycle: u32,
    /// Further cycles the tag stage takes for a load or store whose lanes touch more than two
    /// lines, beyond its lines' turns (cycles).
    pub request_cycles: u32,
    /// Cycles each line of a global reduction (`RED`, or an atomic whose result nothing reads)
    /// takes at the L1's stage on its way to the L2: one whose lanes touch 32 lines holds the
    /// stage 32 times this, and the SM's loads and stores queue behind it. Returning atomics
    /// (`ATOM`, `CAS`) take `lines_per_cycle` as loads do (cycles).
    pub atomic_line_cycles: f64,
    /// Fixed L1 size (KiB) for generations without a unified L1/shared array (0: unified).
    pub fixed_kib: u32,
    /// Global stores allocate the bytes they write in the L1 (write-through with a byte-masked
    /// write-allocate, fetched lazily when a read needs a partly written sector: Volta+); false:
    /// stores leave the L1 as it is (no write-allocate).
    pub store_allocate: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct L2 {
    /// Capacity (KiB).
    pub size_kib: u32,
    /// Slices (count); addresses are hashed across them.
    pub slices: u32,
    /// Runs of every slice one placement block of consecutive units (lines, or the groups of
    /// lines `slice_shared_line_bits` makes) fills evenly (count; 1: every block of `slices`
    /// units a permutation of the slices; more: nearby units may share slices).
    pub placement_runs: u32,
    /// Bits of the line number that do not select the slice: lines differing only in them
    /// share one (mask; 0: every line is placed on its own).
    pub slice_shared_line_bits: u32,
    pub assoc: u32,
    /// Ways of each set that may hold lines with partially written sectors; a partial write
    /// beyond them writes back the set's least recently used partial line (ways; `assoc`: no
    /// limit).
    pub partial_ways: u32,
    /// Aligned block a read miss fetches from DRAM and fills around each missing sector
    /// (bytes; the sector size: no promotion).
    pub promotion_bytes: u32,
    /// Load-to-use latency of an L2 hit seen by an SM, L1 miss included (cycles).
    pub hit_latency: u32,
    /// Extra latency when the line's home is the far partition (cycles; 0 for a monolithic L2).
    pub far_extra_latency: u32,
    /// Partitions the slices are split into (count; Hopper and Ampere have 2).
    pub partitions: u32,
    /// The partition each GPC's SMs are near, by GPC, used when it has an entry below
    /// `partitions` for each GPC; else GPC mod `partitions` (index).
    pub gpc_partition: Vec<u32>,
    /// Sectors each slice serves per cycle (count).
    pub sectors_per_cycle_per_slice: f64,
    /// Sectors of writes (stores, write-backs from L1) each slice absorbs per cycle (count).
    pub write_sectors_per_cycle_per_slice: f64,
    /// Requests (tag lookups) each slice serves per cycle, whatever their sectors (count).
    pub requests_per_cycle_per_slice: f64,
    /// DRAM reads in flight per slice; a further miss waits for the earliest to return (count).
    pub mshrs_per_slice: u32,
    /// Reads of one line from the SMs of one GPC that ride one L2 read: the request coalescer
    /// in front of the slices merges a read arriving while an earlier one for the same sectors
    /// is still in flight, and the slice neither serves nor counts it (count; 1: no coalescer).
    pub coalescer_merge: u32,
    /// Sector lookups that update part of a sector (one address's lanes, scattered words) the
    /// slice's atomic unit applies per cycle (count).
    pub atomics_per_cycle_per_slice: f64,
    /// Least cycles between two returning atomic requests (rounds) to one line: the next waits
    /// for the old value; other lines of the slice proceed meanwhile (cycles).
    pub atomic_request_cycles: f64,
    /// Further cycles a returning atomic holds its line per sector it writes only in part: the
    /// read-modify-write merges bytes (cycles).
    pub atomic_partial_cycles: f64,
    /// Cycles the slice's atomic unit spends on a sector lookup that updates every byte of the
    /// sector (a warp's coalesced words); lookups that update part of one go at
    /// `atomics_per_cycle_per_slice` (cycles).
    pub atomic_sector_cycles: f64,
    /// Times a returning atomic's whole-sector work passes, again, through the atomic unit of
    /// the near slice when its line is homed in the other partition (operands in, old values
    /// out), queued behind that slice's own atomics; 0 where nothing passes (count).
    pub atomic_far_passes: f64,
    /// L2 read sectors every launch costs apart from the kernel's own accesses and its code
    /// (the launch's constant banks and front-end reads; all hits; sectors, counters only).
    pub launch_read_sectors: u32,
    /// L2 read sectors per machine instruction of the kernel's code that a launch reads for
    /// instruction fetch (every GPC fetches the code: sectors per instruction, counters only).
    pub code_read_sectors_per_instruction: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dram {
    /// Independent channels (count).
    pub channels: u32,
    /// Banks per channel (count).
    pub banks: u32,
    /// Row (page) size per bank (bytes).
    pub row_bytes: u32,
    /// Sustained bandwidth of the whole device (GB/s).
    pub bandwidth_gbs: f64,
    /// Load-to-use latency of a DRAM access with a row hit, L2 miss included (cycles).
    pub latency: u32,
    /// Extra cycles for a row miss (precharge + activate) (cycles).
    pub row_miss_penalty: u32,
    /// Least cycles between two row activations in one channel; 0: no limit (cycles).
    pub activate_cycles: f64,
    /// How long after a row's latest request a further request for it is still served with the
    /// row's activation (the controller's first-ready reordering) (cycles).
    pub reorder_window: u32,
    /// Further latency of every access when the memory moves data at its full bandwidth; it grows
    /// in proportion to the recent bandwidth use (cycles).
    pub loaded_latency: u32,
    /// Time constant of the recent bandwidth use that `loaded_latency` scales with (cycles).
    pub load_window: u32,
    /// Bytes of the aligned block one access moves: a transfer of fewer sectors still occupies
    /// the channel for the whole block (bytes).
    pub burst_bytes: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Misc {
    /// Fixed kernel launch overhead included in the reported cycles (cycles).
    pub launch_overhead: u32,
    /// Cycles a launch that calls device `printf` pays once for it (cycles).
    pub printf_launch_cycles: u32,
    /// Cycles each further `printf` call (one lane's line) adds to its launch (cycles).
    pub printf_line_cycles: u32,
    /// `bar.sync` release latency after the last arrival (cycles).
    pub barrier_latency: u32,
    /// Atomic latency at L2 beyond a load's (cycles).
    pub atomic_extra_latency: u32,
    /// Shared-memory atomic latency (cycles).
    pub smem_atomic_latency: u32,
    /// Constant-cache hit latency (cycles).
    pub const_latency: u32,
    /// Remote (distributed) shared memory latency within a cluster (cycles).
    pub dsmem_latency: u32,
    /// `mbarrier` arrive and successful `try_wait` latencies (cycles).
    pub mbarrier_latency: u32,
    /// SASS mode: cycles from an mbarrier phase completing (the last arrive, or a TMA's bytes)
    /// until a warp asleep in its `try_wait` issues again (cycles).
    pub mbarrier_wake_latency: u32,
    /// TMA issue-to-completion overhead beyond the memory traffic (cycles).
    pub tma_latency: u32,
    /// Cluster barrier round trip (cycles).
    pub cluster_barrier_latency: u32,
    /// Cycles a warp issues nothing after each pass of an indirect branch (`BRX`, `brx.idx`),
    /// beyond its issue: Nsight Compute's `branch_resolving` state (cycles).
    pub indexed_branch_cycles: u32,
    /// Further cycles after a pass of an indirect branch that peels off the lanes of one of
    /// several targets (the rest run it again) (cycles).
    pub indexed_branch_split_cycles: u32,
    /// Cycles the SM's branch unit takes per pass of an indirect branch: its warps' passes
    /// queue (cycles).
    pub indexed_branch_issue_cycles: u32,
    /// Cycles a warp issues nothing after a direct branch that split its lanes two ways, beyond
    /// its issue: ncu's `branch_resolving` (cycles).
    pub divergent_branch_cycles: u32,
    /// Cycles such a split holds the SM's branch unit, in the queue of indirect branches'
    /// passes (cycles).
    pub divergent_branch_issue_cycles: u32,
}

/// The whole GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchConfig {
    pub name: String,
    pub description: String,
    /// Architecture generation (`tesla`, `fermi`, `kepler`, `maxwell`, `pascal`, `volta`,
    /// `turing`, `ampere`, `ada`, `hopper`).
    pub generation: String,
    /// Compute capability [major, minor].
    pub compute_capability: [u32; 2],
    pub clock: Clock,
    pub sm: Sm,
    pub pipes: Pipes,
    pub tensor: Tensor,
    pub smem: SharedMem,
    pub l1: L1,
    pub l2: L2,
    pub dram: Dram,
    pub coalescing: Coalescing,
    pub features: Features,
    pub misc: Misc,
    /// SASS instructions per PTX instruction class (`warpsim_isa::costs::Class` names). A preset
    /// lists the classes it has fitted; the others keep their defaults.
    #[serde(default)]
    pub machine_ops: MachineOps,
}

/// Machine ops per PTX instruction class: read from a partial table (missing classes keep their
/// defaults), written out whole, so every class is a key path `--set` can reach
/// (`--set machine_ops.ld_param=0`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MachineOps(pub CostTable);

impl Serialize for MachineOps {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m: BTreeMap<&str, u8> = Class::ALL.iter().map(|&c| (c.name(), self.0.get(c))).collect();
        m.serialize(s)
    }
}

impl<'de> Deserialize<'de> for MachineOps {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = BTreeMap::<String, u8>::deserialize(d)?;
        CostTable::with(m.iter().map(|(k, &v)| (k.as_str(), v)))
            .map(MachineOps)
            .map_err(|k| serde::de::Error::custom(format!("unknown PTX instruction class `{k}`")))
    }
}
