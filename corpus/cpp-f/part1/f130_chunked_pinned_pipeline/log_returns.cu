// case: a tick-data pipeline double-buffers chunks through two pinned slots defined in a header; before refilling a slot or reading its output it calls the header helper wait_slot (cudaEventSynchronize on the slot's event), and drains both slots at the end.
// expect: none
#include "pipeline.h"
#include <cmath>

__global__ void log_returns(const float* px, float* ret, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) ret[0] = 0.f;
    else if (i < n) ret[i] = logf(px[i] / px[i - 1]);
}

static double consume(const Slot& s, int n) {
    double var = 0.0;
    for (int i = 0; i < n; ++i) var += (double)s.h_out[i] * s.h_out[i];
    return var;
}

int main() {
    const int chunk = 1 << 20;
    const int nchunks = 40;
    Slot slots[2];
    make_slot(slots[0], chunk);
    make_slot(slots[1], chunk);

    double realized = 0.0;
    for (int c = 0; c < nchunks; ++c) {
        Slot& sl = slots[c % 2];
        if (sl.chunk >= 0) {
            wait_slot(sl);
            realized += consume(sl, chunk);
            sl.chunk = -1;
        }
        for (int i = 0; i < chunk; ++i)
            sl.h_in[i] = 100.f + 5.f * sinf(0.001f * ((size_t)c * chunk + i));
        CUDA_CHECK(cudaMemcpyAsync(sl.d_in, sl.h_in, chunk * sizeof(float), cudaMemcpyHostToDevice, sl.stream));
        log_returns<<<(chunk + 255) / 256, 256, 0, sl.stream>>>(sl.d_in, sl.d_out, chunk);
        CUDA_CHECK(cudaMemcpyAsync(sl.h_out, sl.d_out, chunk * sizeof(float), cudaMemcpyDeviceToHost, sl.stream));
        CUDA_CHECK(cudaEventRecord(sl.done, sl.stream));
        sl.chunk = c;
    }
    for (Slot& sl : slots) {
        if (sl.chunk < 0) continue;
        wait_slot(sl);
        realized += consume(sl, chunk);
    }
    std::printf("realized variance %.6e over %d chunks\n", realized, nchunks);

    destroy_slot(slots[1]);
    destroy_slot(slots[0]);
    return 0;
}
