// fp_oracle.cu: records what an sm_90 GPU computes for each PTX floating-point instruction variant
// that warpsim-isa's fp module models, for isa/tests/fp_oracle.rs to compare bit for bit.
//
// Build and run (CUDA 13, on the GPU machine):
//   nvcc -arch=sm_90 -O2 -o /tmp/fp_oracle isa/tests/hw/fp_oracle.cu && /tmp/fp_oracle fp_oracle_h200.txt
//
// It reads nothing: inputs are special values crossed with each other plus values from a fixed LCG.
// Each instruction is inline PTX, so the exact variant named is the one measured.
//
// Output (plain text, hex without 0x):
//   # comment lines
//   set NAME ARITY COUNT          then COUNT lines of ARITY hex operands
//   op PTX-MNEMONIC SET BITS      then COUNT lines of one hex result (the BITS-wide destination
//                                 register)
// Predicate results (setp, testp) are written as 0 or 1. Results narrower than their register
// (cvt to s8/u16...) are the full register as the GPU wrote it.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

// ---------------------------------------------------------------------------------------------
// Bit casts between host-side integer storage and register types.

template <class T, class U>
__host__ __device__ inline T bits_as(U u) {
    static_assert(sizeof(T) == sizeof(U), "size");
    union {
        U u;
        T t;
    } x;
    x.u = u;
    return x.t;
}

// ---------------------------------------------------------------------------------------------
// Operations. Each is a struct with the storage types of its operands (A) and result (D), and a
// device function running one inline PTX instruction. R* are the register types the asm sees.

#define OP1(ID, INS, TD, RD, CD, TA, RA, CA)                                            \
    struct ID {                                                                         \
        typedef TA A;                                                                   \
        typedef TD D;                                                                   \
        static const char* name() { return INS; }                                       \
        __device__ static D f(A a) {                                                    \
            RD d;                                                                       \
            asm volatile(INS " %0, %1;" : CD(d) : CA(bits_as<RA>(a)));                  \
            return bits_as<D>(d);                                                       \
        }                                                                               \
    };
#define OP2(ID, INS, TD, RD, CD, TA, RA, CA)                                            \
    struct ID {                                                                         \
        typedef TA A;                                                                   \
        typedef TD D;                                                                   \
        static const char* name() { return INS; }                                       \
        __device__ static D f(A a, A b) {                                               \
            RD d;                                                                       \
            asm volatile(INS " %0, %1, %2;" : CD(d) : CA(bits_as<RA>(a)), CA(bits_as<RA>(b))); \
            return bits_as<D>(d);                                                       \
        }                                                                               \
    };
#define OP3(ID, INS, TD, RD, CD, TA, RA, CA)                                            \
    struct ID {                                                                         \
        typedef TA A;                                                                   \
        typedef TD D;                                                                   \
        static const char* name() { return INS; }                                       \
        __device__ static D f(A a, A b, A c) {                                          \
            RD d;                                                                       \
            asm volatile(INS " %0, %1, %2, %3;"                                         \
                         : CD(d)                                                        \
                         : CA(bits_as<RA>(a)), CA(bits_as<RA>(b)), CA(bits_as<RA>(c))); \
            return bits_as<D>(d);                                                       \
        }                                                                               \
    };
// Predicate results: setp (two operands) and testp (one), written as 0/1.
#define PRED1(ID, INS, TA, RA, CA)                                                      \
    struct ID {                                                                         \
        typedef TA A;                                                                   \
        typedef uint32_t D;                                                             \
        static const char* name() { return INS; }                                       \
        __device__ static D f(A a) {                                                    \
            uint32_t d;                                                                 \
            asm volatile("{ .reg .pred p; " INS " p, %1; selp.u32 %0, 1, 0, p; }"       \
                         : "=r"(d) : CA(bits_as<RA>(a)));                               \
            return d;                                                                   \
        }                                                                               \
    };
#define PRED2(ID, INS, TA, RA, CA)                                                      \
    struct ID {                                                                         \
        typedef TA A;                                                                   \
        typedef uint32_t D;                                                             \
        static const char* name() { return INS; }                                       \
        __device__ static D f(A a, A b) {                                               \
            uint32_t d;                                                                 \
            asm volatile("{ .reg .pred p; " INS " p, %1, %2; selp.u32 %0, 1, 0, p; }"   \
                         : "=r"(d) : CA(bits_as<RA>(a)), CA(bits_as<RA>(b)));           \
            return d;                                                                   \
        }                                                                               \
    };

// Shorthands by register kind: F = f32 ("f"), D = f64 ("d"), H = 16-bit ("h"), R = 32-bit ("r"),
// L = 64-bit ("l").
#define F_ uint32_t, float, "f"
#define FD_ uint32_t, float, "=f"
#define D_ uint64_t, double, "d"
#define DD_ uint64_t, double, "=d"
#define H_ uint16_t, unsigned short, "h"
#define HD_ uint16_t, unsigned short, "=h"
#define R_ uint32_t, uint32_t, "r"
#define RD_ uint32_t, uint32_t, "=r"
#define L_ uint64_t, uint64_t, "l"
#define LD_ uint64_t, uint64_t, "=l"

// ---------------------------------------------------------------------------------------------
// Kernels.

template <class Op>
__global__ void k1(const typename Op::A* a, typename Op::D* d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = Op::f(a[i]);
}
template <class Op>
__global__ void k2(const typename Op::A* a, const typename Op::A* b, typename Op::D* d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = Op::f(a[i], b[i]);
}
template <class Op>
__global__ void k3(const typename Op::A* a, const typename Op::A* b, const typename Op::A* c,
                   typename Op::D* d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = Op::f(a[i], b[i], c[i]);
}

// ---------------------------------------------------------------------------------------------
// Input sets.

struct Set {
    std::string name;
    int arity;
    std::vector<uint64_t> col[3];
    size_t size() const { return col[0].size(); }
};

static uint64_t lcg_state = 0x2545F4914F6CDD1DULL;
static uint32_t next32() {
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(lcg_state >> 32);
}
static uint64_t next64() {
    uint64_t hi = next32();
    return hi << 32 | next32();
}

// A floating-point format: exponent and fraction widths.
struct Fmt {
    int e, m;
    uint64_t mask() const { return (1 + e + m) == 64 ? ~0ULL : ((1ULL << (1 + e + m)) - 1); }
    uint64_t emax() const { return (1ULL << e) - 1; }
    uint64_t bias() const { return (1ULL << (e - 1)) - 1; }
    uint64_t make(uint64_t sign, uint64_t ex, uint64_t man) const {
        return (sign & 1) << (e + m) | (ex & emax()) << m | (man & ((1ULL << m) - 1));
    }
    uint64_t exp_of(uint64_t x) const { return (x >> m) & emax(); }
};
static const Fmt FMT32 = {8, 23}, FMT64 = {11, 52}, FMT16 = {5, 10}, FMTB16 = {8, 7};

// One random value of format f, weighted towards the interesting.
static uint64_t rnd_float(const Fmt& f) {
    uint64_t s = next32() & 1, man = next64();
    switch (next32() % 8) {
        case 0: case 1: case 2: return next64() & f.mask();
        case 3: return f.make(s, f.bias() - 3 + next32() % 7, man);          // near 1
        case 4: return f.make(s, 0, man);                                     // subnormal
        case 5: {                                                             // short fraction
            int k = 1 + next32() % (f.m < 8 ? f.m : 8);
            return f.make(s, next32() % (f.emax() + 1), man & ~((1ULL << (f.m - k)) - 1));
        }
        case 6: {                                                             // extreme exponents
            uint64_t ex[4] = {1, 2, f.emax() - 1, f.emax() - 2};
            return f.make(s, ex[next32() % 4], man);
        }
        default: {                                                            // integers and halves
            int k = 1 + next32() % (f.m < 10 ? f.m : 10);
            uint64_t ex = f.bias() + next32() % (f.m + 3);
            return f.make(s, ex, man & ~((1ULL << (f.m - k)) - 1));
        }
    }
}

// b chosen against a: independent, near −a (cancellation), or a few binades below (sticky, ties).
static uint64_t rnd_partner(const Fmt& f, uint64_t a) {
    switch (next32() % 4) {
        case 0: {
            uint64_t sign = 1ULL << (f.e + f.m);
            return ((a ^ sign) + (next32() % 5) - 2) & f.mask();
        }
        case 1: {
            uint64_t ex = f.exp_of(a), d = 1 + next32() % (f.m + 4);
            return f.make(next32(), ex > d ? ex - d : 0, next64());
        }
        default: return rnd_float(f);
    }
}

static std::vector<uint64_t> specials(const Fmt& f, bool small) {
    uint64_t sign = 1ULL << (f.e + f.m), inf = f.emax() << f.m, one = f.bias() << f.m;
    uint64_t minnorm = 1ULL << f.m, quiet = 1ULL << (f.m - 1);
    std::vector<uint64_t> v = {0, sign, inf, inf | sign, inf | quiet, inf | 1, 1, minnorm, one, one | sign, inf - 1};
    if (small) return v;
    std::vector<uint64_t> more = {
        inf | sign | quiet | 3,       // negative NaN with a payload
        sign | 1,
        (inf - 1) | sign,
        minnorm - 1,                  // largest subnormal
        minnorm | sign,
        minnorm >> 1,                 // half of the smallest normal
        3,                            // small subnormal
        one - 1, one + 1,             // 1 − ulp, 1 + ulp
        one - minnorm,                // 0.5
        one | (1ULL << (f.m - 1)),    // 1.5
        (one + minnorm) | (1ULL << (f.m - 2)), // 2.5
        (one + minnorm) | (1ULL << (f.m - 2)) | sign,
        (one + minnorm) | (1ULL << (f.m - 1)), // 3
        (one - minnorm) | ((1ULL << f.m) - 1) / 3,  // ≈ 1/3 (0.0101… pattern)
        (f.bias() + f.m) << f.m | 1,  // 2^m + 1 (odd integer at the edge of exactness)
        (f.bias() + f.m + 1) << f.m,  // 2^(m+1)
    };
    v.insert(v.end(), more.begin(), more.end());
    if (f.e >= 8) {  // large integers where the exponent range allows
        uint64_t big[] = {(f.bias() + 31) << f.m, ((f.bias() + 31) << f.m) | sign, (f.bias() + 32) << f.m,
                          (f.bias() + 63) << f.m, (f.bias() + 64) << f.m, ((f.bias() + 63) << f.m) | sign};
        v.insert(v.end(), big, big + 6);
    } else {
        uint64_t mid[] = {(f.bias() + 7) << f.m, (f.bias() + 8) << f.m, (f.bias() + 15) << f.m,
                          ((f.bias() + 15) << f.m) | sign};
        v.insert(v.end(), mid, mid + 4);
    }
    return v;
}

static Set unary_set(const char* name, const Fmt& f, int nrand) {
    Set s;
    s.name = name;
    s.arity = 1;
    s.col[0] = specials(f, false);
    for (int i = 0; i < nrand; i++) s.col[0].push_back(rnd_float(f));
    return s;
}

static Set binary_set(const char* name, const Fmt& f, int nrand) {
    Set s;
    s.name = name;
    s.arity = 2;
    std::vector<uint64_t> sp = specials(f, false);
    for (uint64_t a : sp)
        for (uint64_t b : sp) {
            s.col[0].push_back(a);
            s.col[1].push_back(b);
        }
    for (int i = 0; i < nrand; i++) {
        uint64_t a = rnd_float(f);
        s.col[0].push_back(a);
        s.col[1].push_back(rnd_partner(f, a));
    }
    return s;
}

// c near −a·b exercises the fused cancellation; prod computes a·b for that (host f64 suffices to
// land near, exactness is not needed).
static Set ternary_set(const char* name, const Fmt& f, int nrand, uint64_t (*neg_prod)(uint64_t, uint64_t)) {
    Set s;
    s.name = name;
    s.arity = 3;
    std::vector<uint64_t> sp = specials(f, true);
    for (uint64_t a : sp)
        for (uint64_t b : sp)
            for (uint64_t c : sp) {
                s.col[0].push_back(a);
                s.col[1].push_back(b);
                s.col[2].push_back(c);
            }
    for (int i = 0; i < nrand; i++) {
        uint64_t a = rnd_float(f), b = rnd_float(f);
        uint64_t c = (i % 2 && neg_prod) ? neg_prod(a, b) + (next32() % 3) - 1 : rnd_partner(f, a);
        s.col[0].push_back(a);
        s.col[1].push_back(b);
        s.col[2].push_back(c & f.mask());
    }
    return s;
}

static uint64_t neg_prod32(uint64_t a, uint64_t b) {
    float x = bits_as<float>((uint32_t)a), y = bits_as<float>((uint32_t)b);
    return bits_as<uint32_t>(-(float)((double)x * (double)y));
}
static uint64_t neg_prod64(uint64_t a, uint64_t b) {
    double x = bits_as<double>(a), y = bits_as<double>(b);
    return bits_as<uint64_t>(-(x * y));
}
static uint64_t neg_prodb16(uint64_t a, uint64_t b) {  // bf16 is the upper half of an f32
    float x = bits_as<float>((uint32_t)(a << 16)), y = bits_as<float>((uint32_t)(b << 16));
    return bits_as<uint32_t>(-(x * y)) >> 16;
}

// Packed pairs of 16-bit values: random lanes, each lane from the format's generator.
static Set pair_set(const char* name, const Fmt& f, int arity, int n) {
    Set s;
    s.name = name;
    s.arity = arity;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < arity; k++) s.col[k].push_back(rnd_float(f) | rnd_float(f) << 16);
    return s;
}

static Set int_set(const char* name, bool wide, int nrand) {
    Set s;
    s.name = name;
    s.arity = 1;
    uint64_t v[] = {0, 1, 2, 3, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF,
                    0x80000000, 0xFFFFFFFF, 0x00FFFFFF, 0x01000001, 0x01000003, 0x00FFF801, 0xFFFFFF80,
                    0xFFFF8000, 0x0800, 0x0801, 0x0803, 0xFFFFF7FF};
    for (uint64_t x : v) s.col[0].push_back(x);
    if (wide) {
        uint64_t w[] = {0x8000000000000000ULL, 0xFFFFFFFFFFFFFFFFULL, 0x7FFFFFFFFFFFFFFFULL,
                        0x0020000000000001ULL, 0x0020000000000003ULL, 0xFFDFFFFFFFFFFFFFULL,
                        0x100000000ULL, 0xFFFFFFFF80000000ULL, 0x00FFFFFF80000000ULL};
        for (uint64_t x : w) s.col[0].push_back(x);
    }
    for (int i = 0; i < nrand; i++) {
        uint64_t x = wide ? next64() >> (next32() % 64) : (uint64_t)(next32() >> (next32() % 32));
        if (next32() & 1) x = wide ? ~x + 1 : (uint32_t)(~x + 1);
        s.col[0].push_back(x);
    }
    return s;
}

// fp8x2 operands: every byte in both lanes.
static Set f8x2_set() {
    Set s;
    s.name = "f8x2";
    s.arity = 1;
    for (int i = 0; i < 256; i++) {
        s.col[0].push_back((uint64_t)i | (uint64_t)(255 - i) << 8);
        s.col[0].push_back((uint64_t)i | (uint64_t)i << 8);
    }
    return s;
}

// ---------------------------------------------------------------------------------------------
// Running and writing.

static FILE* out;
static std::vector<Set> sets;

static const Set& find_set(const char* name) {
    for (const Set& s : sets)
        if (s.name == name) return s;
    fprintf(stderr, "no set %s\n", name);
    exit(1);
}

static void write_set(const Set& s) {
    fprintf(out, "set %s %d %zu\n", s.name.c_str(), s.arity, s.size());
    for (size_t i = 0; i < s.size(); i++) {
        for (int k = 0; k < s.arity; k++) fprintf(out, k ? " %llx" : "%llx", (unsigned long long)s.col[k][i]);
        fputc('\n', out);
    }
}

template <class T>
static T* upload(const std::vector<uint64_t>& v) {
    std::vector<T> h(v.size());
    for (size_t i = 0; i < v.size(); i++) h[i] = (T)v[i];
    T* d;
    CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <class Op>
static void finish(const char* set, typename Op::D* dd, int n, std::vector<void*>& frees) {
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<typename Op::D> h(n);
    CHECK(cudaMemcpy(h.data(), dd, n * sizeof(typename Op::D), cudaMemcpyDeviceToHost));
    fprintf(out, "op %s %s %d\n", Op::name(), set, (int)(8 * sizeof(typename Op::D)));
    for (int i = 0; i < n; i++) fprintf(out, "%llx\n", (unsigned long long)h[i]);
    for (void* p : frees) CHECK(cudaFree(p));
    CHECK(cudaFree(dd));
}

template <class Op>
static void run1(const char* set) {
    const Set& s = find_set(set);
    int n = (int)s.size();
    typename Op::A* a = upload<typename Op::A>(s.col[0]);
    typename Op::D* d;
    CHECK(cudaMalloc(&d, n * sizeof(typename Op::D)));
    k1<Op><<<(n + 255) / 256, 256>>>(a, d, n);
    std::vector<void*> frees = {a};
    finish<Op>(set, d, n, frees);
}
template <class Op>
static void run2(const char* set) {
    const Set& s = find_set(set);
    int n = (int)s.size();
    typename Op::A* a = upload<typename Op::A>(s.col[0]);
    typename Op::A* b = upload<typename Op::A>(s.col[1]);
    typename Op::D* d;
    CHECK(cudaMalloc(&d, n * sizeof(typename Op::D)));
    k2<Op><<<(n + 255) / 256, 256>>>(a, b, d, n);
    std::vector<void*> frees = {a, b};
    finish<Op>(set, d, n, frees);
}
template <class Op>
static void run3(const char* set) {
    const Set& s = find_set(set);
    int n = (int)s.size();
    typename Op::A* a = upload<typename Op::A>(s.col[0]);
    typename Op::A* b = upload<typename Op::A>(s.col[1]);
    typename Op::A* c = upload<typename Op::A>(s.col[2]);
    typename Op::D* d;
    CHECK(cudaMalloc(&d, n * sizeof(typename Op::D)));
    k3<Op><<<(n + 255) / 256, 256>>>(a, b, c, d, n);
    std::vector<void*> frees = {a, b, c};
    finish<Op>(set, d, n, frees);
}

// ---------------------------------------------------------------------------------------------
// The instruction variants (the PTX text INS is what is recorded).

// Each line below defines one instruction variant and registers it to run on a named input set:
// U/B/T for one/two/three operands, PU/PB for predicate results. DST and SRC are register kinds.
typedef void (*Runner)();
static std::vector<Runner>& registry() {
    static std::vector<Runner> r;
    return r;
}
struct Reg {
    Reg(Runner f) { registry().push_back(f); }
};
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define REG(ID, RUN, SET) \
    static void CAT(run_, ID)() { RUN<ID>(SET); } \
    static Reg CAT(reg_, ID)(CAT(run_, ID));
#define U_(ID, INS, SET, ...) OP1(ID, INS, __VA_ARGS__) REG(ID, run1, SET)
#define B_(ID, INS, SET, ...) OP2(ID, INS, __VA_ARGS__) REG(ID, run2, SET)
#define T_(ID, INS, SET, ...) OP3(ID, INS, __VA_ARGS__) REG(ID, run3, SET)
#define PU_(ID, INS, SET, ...) PRED1(ID, INS, __VA_ARGS__) REG(ID, run1, SET)
#define PB_(ID, INS, SET, ...) PRED2(ID, INS, __VA_ARGS__) REG(ID, run2, SET)
#define U(INS, DST, SRC, SET) U_(CAT(op_, __LINE__), INS, SET, DST, SRC)
#define B(INS, DST, SRC, SET) B_(CAT(op_, __LINE__), INS, SET, DST, SRC)
#define T(INS, DST, SRC, SET) T_(CAT(op_, __LINE__), INS, SET, DST, SRC)
#define PU(INS, SRC, SET) PU_(CAT(op_, __LINE__), INS, SET, SRC)
#define PB(INS, SRC, SET) PB_(CAT(op_, __LINE__), INS, SET, SRC)
// bf16 converts to and from 8-bit integers only through .b8 registers (as cuda_bf16.hpp does):
// U8D writes the 8-bit result (so its register is 8 bits wide), U8S reads the low byte.
#define U8D_(ID, INS, SET)                                                                       \
    struct ID {                                                                                  \
        typedef uint16_t A;                                                                      \
        typedef uint8_t D;                                                                       \
        static const char* name() { return INS; }                                                \
        __device__ static D f(A a) {                                                             \
            unsigned short d;                                                                    \
            asm volatile("{ .reg .b8 t; " INS " t, %1; mov.b16 %0, {t, 0}; }" : "=h"(d) : "h"(a)); \
            return (D)d;                                                                         \
        }                                                                                        \
    };                                                                                           \
    REG(ID, run1, SET)
#define U8S_(ID, INS, SET)                                                                       \
    struct ID {                                                                                  \
        typedef uint16_t A;                                                                      \
        typedef uint16_t D;                                                                      \
        static const char* name() { return INS; }                                                \
        __device__ static D f(A a) {                                                             \
            unsigned short d;                                                                    \
            asm volatile("{ .reg .b8 t, u; mov.b16 {t, u}, %1; " INS " %0, t; }" : "=h"(d) : "h"(a)); \
            return d;                                                                            \
        }                                                                                        \
    };                                                                                           \
    REG(ID, run1, SET)
#define U8D(INS, SET) U8D_(CAT(op_, __LINE__), INS, SET)
#define U8S(INS, SET) U8S_(CAT(op_, __LINE__), INS, SET)

// f32 arithmetic
B("add.rn.f32", FD_, F_, "f32_2")
B("add.rz.f32", FD_, F_, "f32_2")
B("add.rm.f32", FD_, F_, "f32_2")
B("add.rp.f32", FD_, F_, "f32_2")
B("add.rn.ftz.f32", FD_, F_, "f32_2")
B("add.rz.ftz.f32", FD_, F_, "f32_2")
B("add.rm.ftz.f32", FD_, F_, "f32_2")
B("add.rp.ftz.f32", FD_, F_, "f32_2")
B("add.rn.sat.f32", FD_, F_, "f32_2")
B("add.rz.ftz.sat.f32", FD_, F_, "f32_2")
B("mul.rn.f32", FD_, F_, "f32_2")
B("mul.rz.f32", FD_, F_, "f32_2")
B("mul.rm.f32", FD_, F_, "f32_2")
B("mul.rp.f32", FD_, F_, "f32_2")
B("mul.rn.ftz.f32", FD_, F_, "f32_2")
B("mul.rz.ftz.f32", FD_, F_, "f32_2")
B("mul.rm.ftz.f32", FD_, F_, "f32_2")
B("mul.rp.ftz.f32", FD_, F_, "f32_2")
B("mul.rn.sat.f32", FD_, F_, "f32_2")
B("mul.rz.ftz.sat.f32", FD_, F_, "f32_2")
B("sub.rn.f32", FD_, F_, "f32_2")
B("sub.rz.f32", FD_, F_, "f32_2")
B("sub.rm.ftz.f32", FD_, F_, "f32_2")
B("sub.rp.sat.f32", FD_, F_, "f32_2")
T("fma.rn.f32", FD_, F_, "f32_3")
T("fma.rz.f32", FD_, F_, "f32_3")
T("fma.rm.f32", FD_, F_, "f32_3")
T("fma.rp.f32", FD_, F_, "f32_3")
T("fma.rn.ftz.f32", FD_, F_, "f32_3")
T("fma.rz.ftz.f32", FD_, F_, "f32_3")
T("fma.rm.ftz.f32", FD_, F_, "f32_3")
T("fma.rp.ftz.f32", FD_, F_, "f32_3")
T("fma.rn.sat.f32", FD_, F_, "f32_3")
T("fma.rz.ftz.sat.f32", FD_, F_, "f32_3")
T("mad.rn.f32", FD_, F_, "f32_3")
T("mad.rm.ftz.f32", FD_, F_, "f32_3")
B("div.rn.f32", FD_, F_, "f32_2")
B("div.rz.f32", FD_, F_, "f32_2")
B("div.rm.f32", FD_, F_, "f32_2")
B("div.rp.f32", FD_, F_, "f32_2")
B("div.rn.ftz.f32", FD_, F_, "f32_2")
B("div.rz.ftz.f32", FD_, F_, "f32_2")
B("div.rm.ftz.f32", FD_, F_, "f32_2")
B("div.rp.ftz.f32", FD_, F_, "f32_2")
U("rcp.rn.f32", FD_, F_, "f32_1")
U("rcp.rz.f32", FD_, F_, "f32_1")
U("rcp.rm.f32", FD_, F_, "f32_1")
U("rcp.rp.f32", FD_, F_, "f32_1")
U("rcp.rn.ftz.f32", FD_, F_, "f32_1")
U("rcp.rz.ftz.f32", FD_, F_, "f32_1")
U("rcp.rm.ftz.f32", FD_, F_, "f32_1")
U("rcp.rp.ftz.f32", FD_, F_, "f32_1")
U("sqrt.rn.f32", FD_, F_, "f32_1")
U("sqrt.rz.f32", FD_, F_, "f32_1")
U("sqrt.rm.f32", FD_, F_, "f32_1")
U("sqrt.rp.f32", FD_, F_, "f32_1")
U("sqrt.rn.ftz.f32", FD_, F_, "f32_1")
U("sqrt.rz.ftz.f32", FD_, F_, "f32_1")
U("sqrt.rm.ftz.f32", FD_, F_, "f32_1")
U("sqrt.rp.ftz.f32", FD_, F_, "f32_1")

// f32 approximate
B("div.approx.f32", FD_, F_, "f32_2")
B("div.approx.ftz.f32", FD_, F_, "f32_2")
B("div.full.f32", FD_, F_, "f32_2")
B("div.full.ftz.f32", FD_, F_, "f32_2")
U("rcp.approx.f32", FD_, F_, "f32_1")
U("rcp.approx.ftz.f32", FD_, F_, "f32_1")
U("sqrt.approx.f32", FD_, F_, "f32_1")
U("sqrt.approx.ftz.f32", FD_, F_, "f32_1")
U("rsqrt.approx.f32", FD_, F_, "f32_1")
U("rsqrt.approx.ftz.f32", FD_, F_, "f32_1")
U("ex2.approx.f32", FD_, F_, "f32_1")
U("ex2.approx.ftz.f32", FD_, F_, "f32_1")
U("lg2.approx.f32", FD_, F_, "f32_1")
U("lg2.approx.ftz.f32", FD_, F_, "f32_1")
U("sin.approx.f32", FD_, F_, "f32_1")
U("sin.approx.ftz.f32", FD_, F_, "f32_1")
U("cos.approx.f32", FD_, F_, "f32_1")
U("cos.approx.ftz.f32", FD_, F_, "f32_1")
U("tanh.approx.f32", FD_, F_, "f32_1")

// f32 min/max, sign, classification, comparison
B("min.f32", FD_, F_, "f32_2")
B("min.ftz.f32", FD_, F_, "f32_2")
B("min.NaN.f32", FD_, F_, "f32_2")
B("min.ftz.NaN.f32", FD_, F_, "f32_2")
B("max.f32", FD_, F_, "f32_2")
B("max.ftz.f32", FD_, F_, "f32_2")
B("max.NaN.f32", FD_, F_, "f32_2")
B("max.ftz.NaN.f32", FD_, F_, "f32_2")
U("abs.f32", FD_, F_, "f32_1")
U("abs.ftz.f32", FD_, F_, "f32_1")
U("neg.f32", FD_, F_, "f32_1")
U("neg.ftz.f32", FD_, F_, "f32_1")
B("copysign.f32", FD_, F_, "f32_2")
PU("testp.finite.f32", F_, "f32_1")
PU("testp.infinite.f32", F_, "f32_1")
PU("testp.number.f32", F_, "f32_1")
PU("testp.notanumber.f32", F_, "f32_1")
PU("testp.normal.f32", F_, "f32_1")
PU("testp.subnormal.f32", F_, "f32_1")
PB("setp.eq.f32", F_, "f32_2")
PB("setp.ne.f32", F_, "f32_2")
PB("setp.lt.f32", F_, "f32_2")
PB("setp.le.f32", F_, "f32_2")
PB("setp.gt.f32", F_, "f32_2")
PB("setp.ge.f32", F_, "f32_2")
PB("setp.equ.f32", F_, "f32_2")
PB("setp.neu.f32", F_, "f32_2")
PB("setp.ltu.f32", F_, "f32_2")
PB("setp.leu.f32", F_, "f32_2")
PB("setp.gtu.f32", F_, "f32_2")
PB("setp.geu.f32", F_, "f32_2")
PB("setp.num.f32", F_, "f32_2")
PB("setp.nan.f32", F_, "f32_2")
PB("setp.eq.ftz.f32", F_, "f32_2")
PB("setp.lt.ftz.f32", F_, "f32_2")
PB("setp.geu.ftz.f32", F_, "f32_2")
PB("setp.nan.ftz.f32", F_, "f32_2")

// f64
B("add.rn.f64", DD_, D_, "f64_2")
B("add.rz.f64", DD_, D_, "f64_2")
B("add.rm.f64", DD_, D_, "f64_2")
B("add.rp.f64", DD_, D_, "f64_2")
B("mul.rn.f64", DD_, D_, "f64_2")
B("mul.rz.f64", DD_, D_, "f64_2")
B("mul.rm.f64", DD_, D_, "f64_2")
B("mul.rp.f64", DD_, D_, "f64_2")
B("div.rn.f64", DD_, D_, "f64_2")
B("div.rz.f64", DD_, D_, "f64_2")
B("div.rm.f64", DD_, D_, "f64_2")
B("div.rp.f64", DD_, D_, "f64_2")
B("sub.rn.f64", DD_, D_, "f64_2")
B("sub.rm.f64", DD_, D_, "f64_2")
T("fma.rn.f64", DD_, D_, "f64_3")
T("fma.rz.f64", DD_, D_, "f64_3")
T("fma.rm.f64", DD_, D_, "f64_3")
T("fma.rp.f64", DD_, D_, "f64_3")
U("rcp.rn.f64", DD_, D_, "f64_1")
U("rcp.rz.f64", DD_, D_, "f64_1")
U("rcp.rm.f64", DD_, D_, "f64_1")
U("rcp.rp.f64", DD_, D_, "f64_1")
U("sqrt.rn.f64", DD_, D_, "f64_1")
U("sqrt.rz.f64", DD_, D_, "f64_1")
U("sqrt.rm.f64", DD_, D_, "f64_1")
U("sqrt.rp.f64", DD_, D_, "f64_1")
U("rcp.approx.ftz.f64", DD_, D_, "f64_1")
U("rsqrt.approx.f64", DD_, D_, "f64_1")
U("rsqrt.approx.ftz.f64", DD_, D_, "f64_1")
U("abs.f64", DD_, D_, "f64_1")
U("neg.f64", DD_, D_, "f64_1")
B("min.f64", DD_, D_, "f64_2")
B("max.f64", DD_, D_, "f64_2")
B("copysign.f64", DD_, D_, "f64_2")
PU("testp.finite.f64", D_, "f64_1")
PU("testp.infinite.f64", D_, "f64_1")
PU("testp.number.f64", D_, "f64_1")
PU("testp.notanumber.f64", D_, "f64_1")
PU("testp.normal.f64", D_, "f64_1")
PU("testp.subnormal.f64", D_, "f64_1")
PB("setp.eq.f64", D_, "f64_2")
PB("setp.ne.f64", D_, "f64_2")
PB("setp.lt.f64", D_, "f64_2")
PB("setp.le.f64", D_, "f64_2")
PB("setp.gt.f64", D_, "f64_2")
PB("setp.ge.f64", D_, "f64_2")
PB("setp.equ.f64", D_, "f64_2")
PB("setp.neu.f64", D_, "f64_2")
PB("setp.ltu.f64", D_, "f64_2")
PB("setp.leu.f64", D_, "f64_2")
PB("setp.gtu.f64", D_, "f64_2")
PB("setp.geu.f64", D_, "f64_2")
PB("setp.num.f64", D_, "f64_2")
PB("setp.nan.f64", D_, "f64_2")

// f16 and bf16
B("add.rn.f16", HD_, H_, "f16_2")
B("add.rn.ftz.f16", HD_, H_, "f16_2")
B("add.rn.sat.f16", HD_, H_, "f16_2")
B("sub.rn.f16", HD_, H_, "f16_2")
B("sub.rn.ftz.sat.f16", HD_, H_, "f16_2")
B("mul.rn.f16", HD_, H_, "f16_2")
B("mul.rn.ftz.f16", HD_, H_, "f16_2")
B("mul.rn.sat.f16", HD_, H_, "f16_2")
B("min.f16", HD_, H_, "f16_2")
B("min.ftz.f16", HD_, H_, "f16_2")
B("min.NaN.f16", HD_, H_, "f16_2")
B("max.f16", HD_, H_, "f16_2")
B("max.ftz.NaN.f16", HD_, H_, "f16_2")
T("fma.rn.f16", HD_, H_, "f16_3")
T("fma.rn.ftz.f16", HD_, H_, "f16_3")
T("fma.rn.sat.f16", HD_, H_, "f16_3")
T("fma.rn.relu.f16", HD_, H_, "f16_3")
T("fma.rn.ftz.relu.f16", HD_, H_, "f16_3")
U("neg.f16", HD_, H_, "f16_1")
U("neg.ftz.f16", HD_, H_, "f16_1")
U("abs.f16", HD_, H_, "f16_1")
U("abs.ftz.f16", HD_, H_, "f16_1")
U("ex2.approx.f16", HD_, H_, "f16_1")
U("tanh.approx.f16", HD_, H_, "f16_1")
PB("setp.eq.f16", H_, "f16_2")
PB("setp.ne.f16", H_, "f16_2")
PB("setp.lt.f16", H_, "f16_2")
PB("setp.ge.f16", H_, "f16_2")
PB("setp.equ.f16", H_, "f16_2")
PB("setp.ltu.f16", H_, "f16_2")
PB("setp.num.f16", H_, "f16_2")
PB("setp.nan.f16", H_, "f16_2")
PB("setp.lt.ftz.f16", H_, "f16_2")
B("add.rn.bf16", HD_, H_, "bf16_2")
B("sub.rn.bf16", HD_, H_, "bf16_2")
B("mul.rn.bf16", HD_, H_, "bf16_2")
B("min.bf16", HD_, H_, "bf16_2")
B("min.NaN.bf16", HD_, H_, "bf16_2")
B("max.bf16", HD_, H_, "bf16_2")
B("max.NaN.bf16", HD_, H_, "bf16_2")
T("fma.rn.bf16", HD_, H_, "bf16_3")
T("fma.rn.relu.bf16", HD_, H_, "bf16_3")
U("neg.bf16", HD_, H_, "bf16_1")
U("abs.bf16", HD_, H_, "bf16_1")
U("ex2.approx.ftz.bf16", HD_, H_, "bf16_1")
U("tanh.approx.bf16", HD_, H_, "bf16_1")
PB("setp.eq.bf16", H_, "bf16_2")
PB("setp.lt.bf16", H_, "bf16_2")
PB("setp.geu.bf16", H_, "bf16_2")
PB("setp.nan.bf16", H_, "bf16_2")

// packed pairs: lane order
B("add.rn.f16x2", RD_, R_, "h2_2")
B("mul.rn.ftz.f16x2", RD_, R_, "h2_2")
B("max.NaN.f16x2", RD_, R_, "h2_2")
T("fma.rn.f16x2", RD_, R_, "h2_3")
U("neg.f16x2", RD_, R_, "h2_1")
U("ex2.approx.f16x2", RD_, R_, "h2_1")
U("tanh.approx.f16x2", RD_, R_, "h2_1")
B("add.rn.bf16x2", RD_, R_, "b2_2")
B("min.NaN.bf16x2", RD_, R_, "b2_2")
T("fma.rn.relu.bf16x2", RD_, R_, "b2_3")
U("abs.bf16x2", RD_, R_, "b2_1")
U("ex2.approx.ftz.bf16x2", RD_, R_, "b2_1")
U("tanh.approx.bf16x2", RD_, R_, "b2_1")

// cvt: float to integer
U("cvt.rni.s8.f32", RD_, F_, "f32_1")
U("cvt.rni.u8.f32", RD_, F_, "f32_1")
U("cvt.rni.s16.f32", RD_, F_, "f32_1")
U("cvt.rni.u16.f32", RD_, F_, "f32_1")
U("cvt.rni.s32.f32", RD_, F_, "f32_1")
U("cvt.rni.u32.f32", RD_, F_, "f32_1")
U("cvt.rni.s64.f32", LD_, F_, "f32_1")
U("cvt.rni.u64.f32", LD_, F_, "f32_1")
U("cvt.rni.s8.f64", RD_, D_, "f64_1")
U("cvt.rni.u8.f64", RD_, D_, "f64_1")
U("cvt.rni.s16.f64", RD_, D_, "f64_1")
U("cvt.rni.u16.f64", RD_, D_, "f64_1")
U("cvt.rni.s32.f64", RD_, D_, "f64_1")
U("cvt.rni.u32.f64", RD_, D_, "f64_1")
U("cvt.rni.s64.f64", LD_, D_, "f64_1")
U("cvt.rni.u64.f64", LD_, D_, "f64_1")
U("cvt.rni.s8.f16", RD_, H_, "f16_1")
U("cvt.rni.u8.f16", RD_, H_, "f16_1")
U("cvt.rni.s16.f16", RD_, H_, "f16_1")
U("cvt.rni.u16.f16", RD_, H_, "f16_1")
U("cvt.rni.s32.f16", RD_, H_, "f16_1")
U("cvt.rni.u32.f16", RD_, H_, "f16_1")
U("cvt.rni.s64.f16", LD_, H_, "f16_1")
U("cvt.rni.u64.f16", LD_, H_, "f16_1")
U8D("cvt.rni.s8.bf16", "bf16_1")
U8D("cvt.rni.u8.bf16", "bf16_1")
U("cvt.rni.s16.bf16", HD_, H_, "bf16_1")
U("cvt.rni.u16.bf16", HD_, H_, "bf16_1")
U("cvt.rni.s32.bf16", RD_, H_, "bf16_1")
U("cvt.rni.u32.bf16", RD_, H_, "bf16_1")
U("cvt.rni.s64.bf16", LD_, H_, "bf16_1")
U("cvt.rni.u64.bf16", LD_, H_, "bf16_1")
U("cvt.rzi.s32.f32", RD_, F_, "f32_1")
U("cvt.rmi.s32.f32", RD_, F_, "f32_1")
U("cvt.rpi.s32.f32", RD_, F_, "f32_1")
U("cvt.rzi.u64.f32", LD_, F_, "f32_1")
U("cvt.rmi.u64.f32", LD_, F_, "f32_1")
U("cvt.rpi.u64.f32", LD_, F_, "f32_1")
U("cvt.rzi.s64.f64", LD_, D_, "f64_1")
U("cvt.rmi.s64.f64", LD_, D_, "f64_1")
U("cvt.rpi.s64.f64", LD_, D_, "f64_1")
U("cvt.rzi.u32.f64", RD_, D_, "f64_1")
U("cvt.rmi.u32.f64", RD_, D_, "f64_1")
U("cvt.rpi.u32.f64", RD_, D_, "f64_1")
U("cvt.rzi.u16.f16", RD_, H_, "f16_1")
U("cvt.rmi.u16.f16", RD_, H_, "f16_1")
U("cvt.rpi.u16.f16", RD_, H_, "f16_1")
U8D("cvt.rzi.s8.bf16", "bf16_1")
U8D("cvt.rmi.s8.bf16", "bf16_1")
U8D("cvt.rpi.s8.bf16", "bf16_1")
U("cvt.rpi.ftz.s32.f32", RD_, F_, "f32_1")
U("cvt.rmi.ftz.s64.f32", LD_, F_, "f32_1")

// cvt: integer to float
U("cvt.rn.f32.s8", FD_, R_, "i32")
U("cvt.rn.f64.s8", DD_, R_, "i32")
U("cvt.rn.f16.s8", HD_, R_, "i32")
U8S("cvt.rn.bf16.s8", "i32")
U("cvt.rn.f32.u8", FD_, R_, "i32")
U("cvt.rn.f64.u8", DD_, R_, "i32")
U("cvt.rn.f16.u8", HD_, R_, "i32")
U8S("cvt.rn.bf16.u8", "i32")
U("cvt.rn.f32.s16", FD_, R_, "i32")
U("cvt.rn.f64.s16", DD_, R_, "i32")
U("cvt.rn.f16.s16", HD_, R_, "i32")
U("cvt.rn.bf16.s16", HD_, H_, "i32")
U("cvt.rn.f32.u16", FD_, R_, "i32")
U("cvt.rn.f64.u16", DD_, R_, "i32")
U("cvt.rn.f16.u16", HD_, R_, "i32")
U("cvt.rn.bf16.u16", HD_, H_, "i32")
U("cvt.rn.f32.s32", FD_, R_, "i32")
U("cvt.rn.f64.s32", DD_, R_, "i32")
U("cvt.rn.f16.s32", HD_, R_, "i32")
U("cvt.rn.bf16.s32", HD_, R_, "i32")
U("cvt.rn.f32.u32", FD_, R_, "i32")
U("cvt.rn.f64.u32", DD_, R_, "i32")
U("cvt.rn.f16.u32", HD_, R_, "i32")
U("cvt.rn.bf16.u32", HD_, R_, "i32")
U("cvt.rn.f32.s64", FD_, L_, "i64")
U("cvt.rn.f64.s64", DD_, L_, "i64")
U("cvt.rn.f16.s64", HD_, L_, "i64")
U("cvt.rn.bf16.s64", HD_, L_, "i64")
U("cvt.rn.f32.u64", FD_, L_, "i64")
U("cvt.rn.f64.u64", DD_, L_, "i64")
U("cvt.rn.f16.u64", HD_, L_, "i64")
U("cvt.rn.bf16.u64", HD_, L_, "i64")
U("cvt.rz.f32.s32", FD_, R_, "i32")
U("cvt.rm.f32.s32", FD_, R_, "i32")
U("cvt.rp.f32.s32", FD_, R_, "i32")
U("cvt.rz.f32.u64", FD_, L_, "i64")
U("cvt.rm.f32.u64", FD_, L_, "i64")
U("cvt.rp.f32.u64", FD_, L_, "i64")
U("cvt.rz.f64.s64", DD_, L_, "i64")
U("cvt.rm.f64.s64", DD_, L_, "i64")
U("cvt.rp.f64.s64", DD_, L_, "i64")
U("cvt.rz.f16.u32", HD_, R_, "i32")
U("cvt.rm.f16.u32", HD_, R_, "i32")
U("cvt.rp.f16.u32", HD_, R_, "i32")
U("cvt.rz.bf16.s64", HD_, L_, "i64")
U("cvt.rm.bf16.s64", HD_, L_, "i64")
U("cvt.rp.bf16.s64", HD_, L_, "i64")
U("cvt.rz.f16.s16", HD_, R_, "i32")
U("cvt.rm.f16.s16", HD_, R_, "i32")
U("cvt.rp.f16.s16", HD_, R_, "i32")

// cvt: float to float
U("cvt.rn.f32.f64", FD_, D_, "f64_1")
U("cvt.rz.f32.f64", FD_, D_, "f64_1")
U("cvt.rm.f32.f64", FD_, D_, "f64_1")
U("cvt.rp.f32.f64", FD_, D_, "f64_1")
U("cvt.rn.ftz.f32.f64", FD_, D_, "f64_1")
U("cvt.rn.f16.f32", HD_, F_, "f32_1")
U("cvt.rz.f16.f32", HD_, F_, "f32_1")
U("cvt.rm.f16.f32", HD_, F_, "f32_1")
U("cvt.rp.f16.f32", HD_, F_, "f32_1")
U("cvt.rn.ftz.f16.f32", HD_, F_, "f32_1")
U("cvt.rn.sat.f16.f32", HD_, F_, "f32_1")
U("cvt.rn.relu.f16.f32", HD_, F_, "f32_1")
U("cvt.rn.satfinite.f16.f32", HD_, F_, "f32_1")
U("cvt.rz.relu.satfinite.f16.f32", HD_, F_, "f32_1")
U("cvt.rn.bf16.f32", HD_, F_, "f32_1")
U("cvt.rz.bf16.f32", HD_, F_, "f32_1")
U("cvt.rn.relu.bf16.f32", HD_, F_, "f32_1")
U("cvt.rn.satfinite.bf16.f32", HD_, F_, "f32_1")
U("cvt.rn.f16.f64", HD_, D_, "f64_1")
U("cvt.rz.f16.f64", HD_, D_, "f64_1")
U("cvt.rm.f16.f64", HD_, D_, "f64_1")
U("cvt.rp.f16.f64", HD_, D_, "f64_1")
U("cvt.rn.bf16.f64", HD_, D_, "f64_1")
U("cvt.rz.bf16.f64", HD_, D_, "f64_1")
U("cvt.rm.bf16.f64", HD_, D_, "f64_1")
U("cvt.rp.bf16.f64", HD_, D_, "f64_1")
U("cvt.rn.bf16.f16", HD_, H_, "f16_1")
U("cvt.rz.bf16.f16", HD_, H_, "f16_1")
U("cvt.rn.f16.bf16", HD_, H_, "bf16_1")
U("cvt.rm.f16.bf16", HD_, H_, "bf16_1")
U("cvt.f32.f16", FD_, H_, "f16_1")
U("cvt.ftz.f32.f16", FD_, H_, "f16_1")
U("cvt.f64.f16", DD_, H_, "f16_1")
U("cvt.f32.bf16", FD_, H_, "bf16_1")
U("cvt.ftz.f32.bf16", FD_, H_, "bf16_1")
U("cvt.f64.bf16", DD_, H_, "bf16_1")
U("cvt.f64.f32", DD_, F_, "f32_1")
U("cvt.ftz.f64.f32", DD_, F_, "f32_1")
U("cvt.f32.f32", FD_, F_, "f32_1")
U("cvt.ftz.f32.f32", FD_, F_, "f32_1")
U("cvt.sat.f32.f32", FD_, F_, "f32_1")
U("cvt.rni.f32.f32", FD_, F_, "f32_1")
U("cvt.rzi.f32.f32", FD_, F_, "f32_1")
U("cvt.rmi.f32.f32", FD_, F_, "f32_1")
U("cvt.rpi.f32.f32", FD_, F_, "f32_1")
U("cvt.rni.ftz.f32.f32", FD_, F_, "f32_1")
U("cvt.rni.f64.f64", DD_, D_, "f64_1")
U("cvt.rzi.f64.f64", DD_, D_, "f64_1")
U("cvt.rmi.f64.f64", DD_, D_, "f64_1")
U("cvt.rpi.f64.f64", DD_, D_, "f64_1")
U("cvt.rni.f16.f16", HD_, H_, "f16_1")
U("cvt.rpi.bf16.bf16", HD_, H_, "bf16_1")
U("cvt.rna.tf32.f32", RD_, F_, "f32_1")
U("cvt.rna.satfinite.tf32.f32", RD_, F_, "f32_1")
U("cvt.rn.tf32.f32", RD_, F_, "f32_1")
U("cvt.rz.tf32.f32", RD_, F_, "f32_1")
U("cvt.rn.relu.tf32.f32", RD_, F_, "f32_1")

// cvt: packed
B("cvt.rn.f16x2.f32", RD_, F_, "f32_2")
B("cvt.rz.f16x2.f32", RD_, F_, "f32_2")
B("cvt.rn.relu.f16x2.f32", RD_, F_, "f32_2")
B("cvt.rn.bf16x2.f32", RD_, F_, "f32_2")
B("cvt.rn.satfinite.e4m3x2.f32", HD_, F_, "f32_2")
B("cvt.rn.satfinite.e5m2x2.f32", HD_, F_, "f32_2")
B("cvt.rn.satfinite.relu.e4m3x2.f32", HD_, F_, "f32_2")
U("cvt.rn.satfinite.e4m3x2.f16x2", HD_, R_, "h2_1")
U("cvt.rn.satfinite.e5m2x2.f16x2", HD_, R_, "h2_1")
U("cvt.rn.f16x2.e4m3x2", RD_, H_, "f8x2")
U("cvt.rn.f16x2.e5m2x2", RD_, H_, "f8x2")
U("cvt.rn.relu.f16x2.e4m3x2", RD_, H_, "f8x2")

// cvt: integer to integer
U("cvt.s32.s8", RD_, R_, "i32")
U("cvt.u32.s8", RD_, R_, "i32")
U("cvt.s32.u16", RD_, R_, "i32")
U("cvt.sat.s8.s32", RD_, R_, "i32")
U("cvt.sat.u8.s32", RD_, R_, "i32")
U("cvt.sat.s16.u32", RD_, R_, "i32")
U("cvt.sat.u32.s32", RD_, R_, "i32")
U("cvt.s64.s32", LD_, R_, "i32")
U("cvt.u64.s16", LD_, R_, "i32")
U("cvt.sat.s32.s64", RD_, L_, "i64")
U("cvt.sat.u32.s64", RD_, L_, "i64")
U("cvt.sat.s64.u64", LD_, L_, "i64")
U("cvt.u32.u64", RD_, L_, "i64")

static void run_all() {
    for (Runner r : registry()) r();
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT.txt\n", argv[0]);
        return 2;
    }
    out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    sets.push_back(unary_set("f32_1", FMT32, 900));
    sets.push_back(binary_set("f32_2", FMT32, 700));
    sets.push_back(ternary_set("f32_3", FMT32, 700, neg_prod32));
    sets.push_back(unary_set("f64_1", FMT64, 900));
    sets.push_back(binary_set("f64_2", FMT64, 700));
    sets.push_back(ternary_set("f64_3", FMT64, 700, neg_prod64));
    sets.push_back(unary_set("f16_1", FMT16, 900));
    sets.push_back(binary_set("f16_2", FMT16, 700));
    sets.push_back(ternary_set("f16_3", FMT16, 700, 0));
    sets.push_back(unary_set("bf16_1", FMTB16, 900));
    sets.push_back(binary_set("bf16_2", FMTB16, 700));
    sets.push_back(ternary_set("bf16_3", FMTB16, 700, neg_prodb16));
    sets.push_back(pair_set("h2_1", FMT16, 1, 600));
    sets.push_back(pair_set("h2_2", FMT16, 2, 600));
    sets.push_back(pair_set("h2_3", FMT16, 3, 600));
    sets.push_back(pair_set("b2_1", FMTB16, 1, 600));
    sets.push_back(pair_set("b2_2", FMTB16, 2, 600));
    sets.push_back(pair_set("b2_3", FMTB16, 3, 600));
    sets.push_back(int_set("i32", false, 600));
    sets.push_back(int_set("i64", true, 600));
    sets.push_back(f8x2_set());

    int dev = 0;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    fprintf(out, "# fp_oracle v1: %s sm_%d%d, driver %d, runtime %d\n", prop.name, prop.major, prop.minor,
            driver, runtime);
    for (const Set& s : sets) write_set(s);
    run_all();
    fclose(out);
    fprintf(stderr, "wrote %s\n", argv[1]);
    return 0;
}
