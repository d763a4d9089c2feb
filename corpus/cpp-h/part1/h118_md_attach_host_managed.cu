// case: Molecular dynamics allocates its managed trajectory log with cudaMemAttachHost, so the host appends frames to it while the force kernel runs on a stream (the kernel never uses the log); other managed data is touched only after synchronization.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

#define CUDACHECK(cmd) do { cudaError_t e = cmd; if (e != cudaSuccess) { printf("Failed: %s %d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(EXIT_FAILURE); } } while (0)

struct Frame { int step; float temperature; float energy; };

__global__ void lj_forces(const float3* pos, float3* force, float* energy, int n, float box)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 f = make_float3(0.f, 0.f, 0.f);
    float e = 0.f;
    for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        float dx = pos[j].x - pos[i].x, dy = pos[j].y - pos[i].y, dz = pos[j].z - pos[i].z;
        dx -= box * rintf(dx / box); dy -= box * rintf(dy / box); dz -= box * rintf(dz / box);
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 > 6.25f) continue;
        float ir6 = 1.f / (r2 * r2 * r2);
        float s = 24.f * ir6 * (2.f * ir6 - 1.f) / r2;
        f.x -= s * dx; f.y -= s * dy; f.z -= s * dz;
        e += 2.f * ir6 * (ir6 - 1.f);
    }
    force[i] = f;
    energy[i] = e;
}

int main()
{
    const int n = 16384, steps = 50;
    const float box = 30.f;
    float3 *pos, *force; float* energy; Frame* log;
    CUDACHECK(cudaMallocManaged(&pos, n * sizeof(float3)));
    CUDACHECK(cudaMalloc(&force, n * sizeof(float3)));
    CUDACHECK(cudaMallocManaged(&energy, n * sizeof(float)));
    CUDACHECK(cudaMallocManaged(&log, steps * sizeof(Frame), cudaMemAttachHost));

    for (int i = 0; i < n; ++i) pos[i] = make_float3((i % 26) * 1.15f, (i / 26 % 26) * 1.15f, (i / 676) * 1.15f);

    cudaStream_t s;
    CUDACHECK(cudaStreamCreate(&s));
    float last_e = 0.f;
    for (int step = 0; step < steps; ++step) {
        lj_forces<<<(n + 127) / 128, 128, 0, s>>>(pos, force, energy, n, box);
        // host-attached: not visible to kernels, safe to touch while lj_forces runs
        log[step].step = step;
        log[step].temperature = 1.0f;
        log[step].energy = last_e;
        CUDACHECK(cudaStreamSynchronize(s));
        double sum = 0.0;
        for (int i = 0; i < n; ++i) sum += energy[i];
        last_e = (float)(sum / n);
    }
    for (int k = 0; k < steps; k += 10) printf("step %d  E/N = %f\n", log[k].step, log[k].energy);

    CUDACHECK(cudaStreamDestroy(s));
    cudaFree(log); cudaFree(energy); cudaFree(force); cudaFree(pos);
    return 0;
}
