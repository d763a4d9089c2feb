// case: an n-body run makes two direction mistakes: the energy readback inside the step loop uses the const kUpload kind, and the final 2D dump of the force table passes device and host swapped.
// expect: memcpy_kind_mismatch=2
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

const cudaMemcpyKind kUpload = cudaMemcpyHostToDevice;
const cudaMemcpyKind kDownload = cudaMemcpyDeviceToHost;

__global__ void forces(const float4* p, float4* f, float* energy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 acc = make_float4(0, 0, 0, 0);
    for (int j = 0; j < n; ++j) {
        float dx = p[j].x - p[i].x, dy = p[j].y - p[i].y, dz = p[j].z - p[i].z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-3f);
        float s = p[j].w * inv * inv * inv;
        acc.x += dx * s; acc.y += dy * s; acc.z += dz * s; acc.w -= p[j].w * inv;
    }
    f[i] = acc;
    atomicAdd(energy, 0.5f * p[i].w * acc.w);
}

int main() {
    const int n = 4096;
    float4* h_p = (float4*)malloc(n * sizeof(float4));
    float4* h_f = (float4*)malloc(n * sizeof(float4));
    for (int i = 0; i < n; ++i) h_p[i] = make_float4(rand() / (float)RAND_MAX, rand() / (float)RAND_MAX,
                                                    rand() / (float)RAND_MAX, 1.0f);
    float4 *d_p, *d_f;
    float* d_energy;
    cudaMalloc(&d_p, n * sizeof(float4));
    cudaMalloc(&d_f, n * sizeof(float4));
    cudaMalloc(&d_energy, sizeof(float));
    cudaMemcpy(d_p, h_p, n * sizeof(float4), kUpload);

    float energy = 0.f;
    for (int step = 0; step < 10; ++step) {
        cudaMemset(d_energy, 0, sizeof(float));
        forces<<<n / 128, 128>>>(d_p, d_f, d_energy, n);
        cudaMemcpy(&energy, d_energy, sizeof(float), kUpload); // EXPECT: memcpy_kind_mismatch
        printf("step %d potential %f\n", step, energy);
    }

    // dump xyz of the force table (skip w): 3 floats per row of 4
    cudaMemcpy2D(d_f, sizeof(float4), h_f, sizeof(float4), 3 * sizeof(float), n, // EXPECT: memcpy_kind_mismatch
                 kDownload);
    printf("f[0] = %f %f %f\n", h_f[0].x, h_f[0].y, h_f[0].z);

    cudaFree(d_p); cudaFree(d_f); cudaFree(d_energy);
    free(h_p); free(h_f);
    return 0;
}
