// Iterative 2-D Jacobi stencil (5-point heat diffusion) over two streams: a host loop of 20
// launches ping-pongs between two buffers, alternating streams, each launch ordered after the
// previous one with an event (cudaStreamWaitEvent). The result is copied back asynchronously,
// checked against the host's 20 steps, and the simulated time measured with events.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL: %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void jacobi(const float *__restrict__ in, float *__restrict__ out, int w, int h, float alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { out[i] = in[i]; return; }
    out[i] = in[i] + alpha * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w] - 4.0f * in[i]);
}

int main() {
    const int w = 128, h = 96, steps = 20;
    const float alpha = 0.2f;
    const size_t bytes = w * h * sizeof(float);
    float *ref = (float *)malloc(bytes), *tmp = (float *)malloc(bytes), *host;
    CHECK(cudaMallocHost(&host, bytes));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) ref[y * w + x] = (x == w / 2 && y == h / 2) ? 1000.0f : (float)((x * 31 + y * 17) % 13);
    for (int i = 0; i < w * h; i++) host[i] = ref[i];
    float *a, *b;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    cudaStream_t s[2];
    cudaEvent_t done[2], start, stop;
    for (int k = 0; k < 2; k++) {
        CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&done[k], cudaEventDisableTiming));
    }
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaMemcpyAsync(a, host, bytes, cudaMemcpyHostToDevice, s[0]));
    CHECK(cudaEventRecord(start, s[0]));
    CHECK(cudaEventRecord(done[0], s[0]));
    dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    for (int t = 0; t < steps; t++) {
        int k = t % 2;
        CHECK(cudaStreamWaitEvent(s[k], done[1 - k], 0));
        jacobi<<<grid, block, 0, s[k]>>>(t % 2 ? b : a, t % 2 ? a : b, w, h, alpha);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(done[k], s[k]));
    }
    int last = (steps - 1) % 2;
    CHECK(cudaEventRecord(stop, s[last]));
    CHECK(cudaMemcpyAsync(host, steps % 2 ? b : a, bytes, cudaMemcpyDeviceToHost, s[last]));
    CHECK(cudaStreamSynchronize(s[last]));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    for (int t = 0; t < steps; t++) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int i = y * w + x;
                tmp[i] = (x == 0 || y == 0 || x == w - 1 || y == h - 1) ? ref[i]
                       : ref[i] + alpha * (ref[i - 1] + ref[i + 1] + ref[i - w] + ref[i + w] - 4.0f * ref[i]);
            }
        float *sw = ref; ref = tmp; tmp = sw;
    }
    double worst = 0;
    for (int i = 0; i < w * h; i++) worst = fmax(worst, fabs(host[i] - ref[i]));
    printf("%d steps on %dx%d over 2 streams: centre %.4f (host %.4f), max error %.2e, %.3f us\n",
           steps, w, h, host[(h / 2) * w + w / 2], ref[(h / 2) * w + w / 2], worst, ms * 1000);
    for (int k = 0; k < 2; k++) { CHECK(cudaStreamDestroy(s[k])); CHECK(cudaEventDestroy(done[k])); }
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    if (worst > 1e-3 || ms <= 0) { printf("FAIL\n"); return 1; }
    printf("PASS\n");
    return 0;
}
