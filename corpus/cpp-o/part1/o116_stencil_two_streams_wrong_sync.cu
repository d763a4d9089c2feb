// case: wave-equation solver computes on one stream and copies the snapshot to pinned memory on a second (after an event wait); the host then synchronizes only the compute stream before writing the snapshot out, so the copy stream's download may still be running.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e_)); exit(EXIT_FAILURE); } } while (0)

__global__ void wave_step(const float* __restrict__ prev, const float* __restrict__ cur,
                          float* __restrict__ next, const float* __restrict__ c2, int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
    int k = j * nx + i;
    float lap = cur[k - 1] + cur[k + 1] + cur[k - nx] + cur[k + nx] - 4.f * cur[k];
    next[k] = 2.f * cur[k] - prev[k] + c2[k] * lap;
}

__global__ void add_source(float* u, int k, float amp) { u[k] += amp; }

int main(int argc, char** argv)
{
    int nx = argc > 1 ? atoi(argv[1]) : 2048, ny = nx;
    int steps = argc > 2 ? atoi(argv[2]) : 400, snap_every = 100;
    size_t n = (size_t)nx * ny, bytes = n * sizeof(float);

    std::vector<float> c2(n, 0.2f);
    float *d_u[3], *d_c2, *h_snap;
    for (auto& p : d_u) { CHK(cudaMalloc(&p, bytes)); CHK(cudaMemset(p, 0, bytes)); }
    CHK(cudaMalloc(&d_c2, bytes));
    CHK(cudaMemcpy(d_c2, c2.data(), bytes, cudaMemcpyHostToDevice));
    CHK(cudaMallocHost(&h_snap, bytes));

    cudaStream_t compute, copy;
    CHK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CHK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    cudaEvent_t step_done;
    CHK(cudaEventCreateWithFlags(&step_done, cudaEventDisableTiming));

    dim3 blk(32, 8), grd((nx + 31) / 32, (ny + 7) / 8);
    int snaps = 0;
    for (int t = 0; t < steps; ++t) {
        float *prev = d_u[t % 3], *cur = d_u[(t + 1) % 3], *next = d_u[(t + 2) % 3];
        if (t < 50) add_source<<<1, 1, 0, compute>>>(cur, (ny / 2) * nx + nx / 2, 1.f);
        wave_step<<<grd, blk, 0, compute>>>(prev, cur, next, d_c2, nx, ny);
        if ((t + 1) % snap_every == 0) {
            CHK(cudaEventRecord(step_done, compute));
            CHK(cudaStreamWaitEvent(copy, step_done, 0));
            CHK(cudaMemcpyAsync(h_snap, next, bytes, cudaMemcpyDeviceToHost, copy));
            CHK(cudaStreamSynchronize(compute));
            double energy = 0.0;
            for (size_t k = 0; k < n; ++k) energy += (double)h_snap[k] * h_snap[k];   // EXPECT: missing_sync
            printf("t=%d  wavefield energy %.6e\n", t + 1, energy);
            char name[64];
            snprintf(name, sizeof name, "snap_%03d.raw", snaps++);
            FILE* f = fopen(name, "wb");
            if (f) { fwrite(h_snap, sizeof(float), n, f); fclose(f); }
        }
    }
    CHK(cudaDeviceSynchronize());

    CHK(cudaEventDestroy(step_done));
    CHK(cudaStreamDestroy(copy));
    CHK(cudaStreamDestroy(compute));
    CHK(cudaFreeHost(h_snap));
    CHK(cudaFree(d_c2));
    for (auto p : d_u) CHK(cudaFree(p));
    return 0;
}
