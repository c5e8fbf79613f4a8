#include <cuda_runtime.h>
#include <cstdio>
__constant__ int cst[4];
__device__ int gv;
template<int N> __global__ void k(int *a){ int i=blockIdx.x*blockDim.x+threadIdx.x; a[i]=i*N+cst[i%4]; if(i==0) printf("hello %d %f\n", N, 1.5); }
int main(){ int *d; cudaMalloc(&d, 1024*4); int h[4]={1,2,3,4}; cudaMemcpyToSymbol(cst,h,16); k<3><<<4,256>>>(d); cudaDeviceSynchronize(); int o[1024]; cudaMemcpy(o,d,4096,cudaMemcpyDeviceToHost); printf("%d %d\n",o[0],o[1023]); cudaFree(d); return 0; }
