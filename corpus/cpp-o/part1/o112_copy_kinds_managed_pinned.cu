// case: seismic trace stacking that copies between managed, pinned and device memory with cudaMemcpyDefault and with explicit kinds that match each side's allocation (pinned source to device, device to managed, device to device): correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void nmo_stack(const float* __restrict__ traces, float* __restrict__ stack,
                          int ntraces, int nsamples, float velocity)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nsamples) return;
    float acc = 0.f;
    for (int tr = 0; tr < ntraces; ++tr) {
        float offset = 25.f * tr;
        float t0 = t * 0.004f;
        float tx = sqrtf(t0 * t0 + (offset * offset) / (velocity * velocity));
        int s = min(nsamples - 1, (int)(tx / 0.004f));
        acc += traces[(size_t)tr * nsamples + s];
    }
    stack[t] = acc / ntraces;
}

int main(int argc, char** argv)
{
    int ntr = argc > 1 ? atoi(argv[1]) : 240, ns = argc > 2 ? atoi(argv[2]) : 4000;
    size_t gather_bytes = (size_t)ntr * ns * sizeof(float);

    float* h_gather;                        // pinned staging
    CHECK_CUDA(cudaMallocHost(&h_gather, gather_bytes));
    for (size_t i = 0; i < (size_t)ntr * ns; ++i) h_gather[i] = ((i * 31) % 200) / 100.f - 1.f;

    float *d_gather, *d_stack, *d_stack_prev;
    CHECK_CUDA(cudaMalloc(&d_gather, gather_bytes));
    CHECK_CUDA(cudaMalloc(&d_stack, ns * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_stack_prev, ns * sizeof(float)));
    float* stack_out;                       // managed result visible to the QC code
    CHECK_CUDA(cudaMallocManaged(&stack_out, ns * sizeof(float)));

    CHECK_CUDA(cudaMemcpy(d_gather, h_gather, gather_bytes, cudaMemcpyHostToDevice));
    const float vels[3] = {1800.f, 2200.f, 2600.f};
    float best = -1.f, best_v = 0.f;
    for (float v : vels) {
        nmo_stack<<<(ns + 127) / 128, 128>>>(d_gather, d_stack, ntr, ns, v);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaMemcpy(stack_out, d_stack, ns * sizeof(float), cudaMemcpyDeviceToHost));
        float energy = 0.f;
        for (int i = 0; i < ns; ++i) energy += stack_out[i] * stack_out[i];
        if (energy > best) {
            best = energy; best_v = v;
            CHECK_CUDA(cudaMemcpy(d_stack_prev, d_stack, ns * sizeof(float), cudaMemcpyDeviceToDevice));
        }
    }
    CHECK_CUDA(cudaMemcpy(stack_out, d_stack_prev, ns * sizeof(float), cudaMemcpyDefault));
    std::vector<float> qc(stack_out, stack_out + ns);
    CHECK_CUDA(cudaMemcpy(h_gather, stack_out, ns * sizeof(float), cudaMemcpyDefault));
    printf("best stacking velocity %.0f m/s, energy %.3f, first sample %.4f / %.4f\n",
           best_v, best, qc[0], h_gather[0]);

    CHECK_CUDA(cudaFree(stack_out));
    CHECK_CUDA(cudaFree(d_stack_prev));
    CHECK_CUDA(cudaFree(d_stack));
    CHECK_CUDA(cudaFree(d_gather));
    CHECK_CUDA(cudaFreeHost(h_gather));
    return 0;
}
