// Device function calls: __noinline__ functions with scalar, pointer, struct-by-value and
// struct-returning signatures (.param .align N .b8 x[M]), recursion, function pointers (indirect
// `call` with a `.callprototype` / prototype label), virtual functions (vtables as .global arrays
// initialised with generic(function) addresses), __forceinline__ for contrast, a .func returning
// nothing, many parameters, and a `__device__` function returning a vector type.
// Compiles for sm_75+.

struct Vec3 {
    float x, y, z;
};

struct Big {
    double d[3];
    int tag;
    char c;
};

__device__ __noinline__ float dot3(Vec3 a, Vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

__device__ __noinline__ Vec3 cross3(const Vec3 &a, const Vec3 &b)
{
    return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

__device__ __noinline__ Big make_big(double s, int tag)
{
    Big b;
    for (int k = 0; k < 3; ++k) b.d[k] = s * (k + 1);
    b.tag = tag;
    b.c = (char)(tag & 0x7f);
    return b;
}

__device__ __noinline__ void store_pair(int *out, int i, long long a, short b, unsigned char c, double d,
                                        float e, bool f, unsigned long long g, float4 h)
{
    out[i] = (int)a + b + c + (int)d + (int)e + (f ? 1 : 0) + (int)(g >> 32) + (int)(h.x + h.w);
}

__device__ __noinline__ float4 splat4(float v) { return make_float4(v, v + 1.0f, v + 2.0f, v + 3.0f); }

__device__ __forceinline__ int inlined_helper(int a) { return a * a + 1; }

__device__ __noinline__ unsigned long long factorial(unsigned n)
{
    return n <= 1 ? 1ull : n * factorial(n - 1);                  // true recursion
}

__device__ __noinline__ int fib(int n)
{
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}

// Mutual recursion.
__device__ __noinline__ bool is_odd(unsigned n);
__device__ __noinline__ bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
__device__ __noinline__ bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

extern "C" __global__ void calls_by_value(const float *in, float *out, int *iout, double *dout)
{
    int t = threadIdx.x;
    Vec3 a{in[3 * t], in[3 * t + 1], in[3 * t + 2]};
    Vec3 b{1.0f, 2.0f, 3.0f};
    Vec3 c = cross3(a, b);
    float4 s = splat4(in[t]);
    out[t] = dot3(a, c) + dot3(c, b) + s.y * s.z;
    Big g = make_big(in[t], t);
    dout[t] = g.d[0] + g.d[2] + g.tag + g.c;
    store_pair(iout, t, -5ll, (short)-3, (unsigned char)200, 2.5, 1.5f, t & 1, 0x1234567800000000ull, s);
    iout[blockDim.x + t] = inlined_helper(t) + (is_even(t) ? 1 : 0);
}

extern "C" __global__ void recursion(const unsigned *n, unsigned long long *fact, int *fibs)
{
    unsigned k = n[threadIdx.x] % 21;
    fact[threadIdx.x] = factorial(k);
    fibs[threadIdx.x] = fib((int)(k % 16));
}

typedef float (*unary_fn)(float);
typedef int (*binary_fn)(int, int);

__device__ __noinline__ float op_square(float x) { return x * x; }
__device__ __noinline__ float op_negate(float x) { return -x; }
__device__ __noinline__ float op_half(float x) { return 0.5f * x; }
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mulhi(int a, int b) { return __mulhi(a, b); }

__device__ unary_fn g_unary[3] = {op_square, op_negate, op_half};   // table of device function pointers
__constant__ binary_fn c_binary[2] = {op_add, op_mulhi};

extern "C" __global__ void function_pointers(const int *sel, const float *x, float *out, int *iout)
{
    int t = threadIdx.x;
    unary_fn f = g_unary[sel[t] % 3];                 // divergent indirect call
    out[t] = f(x[t]);
    binary_fn g = c_binary[sel[t] & 1];
    iout[t] = g(sel[t], t);
}

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual int sides() const { return 0; }
    __device__ virtual ~Shape() {}
};

struct Square : Shape {
    float s;
    __device__ Square(float s_) : s(s_) {}
    __device__ float area() const override { return s * s; }
    __device__ int sides() const override { return 4; }
};

struct Circle : Shape {
    float r;
    __device__ Circle(float r_) : r(r_) {}
    __device__ float area() const override { return 3.14159265f * r * r; }
};

extern "C" __global__ void virtual_calls(const float *sz, float *area, int *sides)
{
    int t = threadIdx.x;
    Square sq(sz[t]);
    Circle ci(sz[t]);
    Shape *s = (t & 1) ? static_cast<Shape *>(&sq) : static_cast<Shape *>(&ci);
    area[t] = s->area();
    sides[t] = s->sides();
}
