// case: A particle-tracking reconstruction downloads track parameters with cudaMemcpyAsync on a stream made by cudaStreamCreate (blocking) and then fetches the track count with a plain cudaMemcpy on the legacy default stream, which waits for that stream's work, so the later host read of the pinned tracks is ordered.
// expect: none
// Built without --default-stream per-thread: stream 0 is the legacy default stream.
#include <cuda_runtime.h>
#include <cstdio>

#define TRK_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

struct Hit { float x, y, z; int layer; };
struct Track { float pt, eta, phi, chi2; };

__global__ void fit_seeds(const Hit* __restrict__ hits, int n_hits, Track* tracks, int* n_tracks) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 2 >= n_hits) return;
    Hit a = hits[i], b = hits[i + 1], c = hits[i + 2];
    if (a.layer != 0 || b.layer != 1 || c.layer != 2) return;
    float dx1 = b.x - a.x, dy1 = b.y - a.y, dx2 = c.x - b.x, dy2 = c.y - b.y;
    float curv = (dx1 * dy2 - dy1 * dx2) / (sqrtf(dx1 * dx1 + dy1 * dy1) * sqrtf(dx2 * dx2 + dy2 * dy2) + 1e-6f);
    int slot = atomicAdd(n_tracks, 1);
    Track t;
    t.pt = 0.3f * 3.8f / (fabsf(curv) + 1e-3f);
    t.phi = atan2f(dy1, dx1);
    t.eta = asinhf((c.z - a.z) / (sqrtf((c.x - a.x) * (c.x - a.x) + (c.y - a.y) * (c.y - a.y)) + 1e-6f));
    t.chi2 = fabsf(curv);
    tracks[slot] = t;
}

int main() {
    const int n_hits = 3 * (1 << 20);
    Hit* h_hits;
    Track* h_tracks;
    TRK_CHECK(cudaMallocHost(&h_hits, n_hits * sizeof(Hit)));
    TRK_CHECK(cudaMallocHost(&h_tracks, n_hits * sizeof(Track)));
    for (int i = 0; i < n_hits; ++i) {
        float r = 30.f + 40.f * (i % 3), ang = 0.001f * (i / 3);
        h_hits[i] = {r * cosf(ang), r * sinf(ang), 0.1f * r, i % 3};
    }

    Hit* d_hits;
    Track* d_tracks;
    int* d_count;
    TRK_CHECK(cudaMalloc(&d_hits, n_hits * sizeof(Hit)));
    TRK_CHECK(cudaMalloc(&d_tracks, n_hits * sizeof(Track)));
    TRK_CHECK(cudaMalloc(&d_count, sizeof(int)));

    cudaStream_t reco;
    TRK_CHECK(cudaStreamCreate(&reco));        // blocking w.r.t. the legacy default stream
    TRK_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int), reco));
    TRK_CHECK(cudaMemcpyAsync(d_hits, h_hits, n_hits * sizeof(Hit), cudaMemcpyHostToDevice, reco));
    fit_seeds<<<(n_hits + 255) / 256, 256, 0, reco>>>(d_hits, n_hits, d_tracks, d_count);
    TRK_CHECK(cudaMemcpyAsync(h_tracks, d_tracks, n_hits / 3 * sizeof(Track), cudaMemcpyDeviceToHost, reco));

    int n_tracks = 0;
    // Legacy-stream copy: waits for all prior work in blocking streams, returns when done.
    TRK_CHECK(cudaMemcpy(&n_tracks, d_count, sizeof(int), cudaMemcpyDeviceToHost));

    float max_pt = 0.f;
    for (int t = 0; t < n_tracks && t < n_hits / 3; ++t)
        if (h_tracks[t].pt > max_pt) max_pt = h_tracks[t].pt;
    printf("%d seeds, max pT %.2f GeV\n", n_tracks, max_pt);

    TRK_CHECK(cudaStreamDestroy(reco));
    cudaFree(d_hits); cudaFree(d_tracks); cudaFree(d_count);
    cudaFreeHost(h_hits); cudaFreeHost(h_tracks);
    return 0;
}
