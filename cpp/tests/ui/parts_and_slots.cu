// Parts of one buffer, slots of a ring, and streams behind wrapper objects. Two pieces of work
// on parts of one allocation written at different offsets (`d` and `d + half`) are not evidence
// of the same bytes; a ring's slots made in a loop are one buffer to the analysis, so work on
// them is reported only where it was never waited for; a stream wrapper given where a helper
// takes a `cudaStream_t` is the stream it converts to. Lines that must be reported end with an
// annotation; ok_* functions stay silent.
// cuda-lint: allow-file(uninitialized_device_read, device_memory_leak)
#include <cuda_runtime.h>
#include <vector>

__global__ void clamp01(float* x, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) x[i] = fminf(fmaxf(x[i], 0.f), 1.f);
}

static void fill(float* dst, size_t n, int round) {
    for (size_t i = 0; i < n; ++i) dst[i] = float((i + round) % 7);
}

// Two streams, each on its own half of one pinned buffer and of one device buffer.
void ok_two_streams_on_halves(size_t n) {
    const size_t half = n / 2;
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaStream_t s0, s1;
    cudaStreamCreate(&s0);
    cudaStreamCreate(&s1);
    cudaMemcpyAsync(d, h, half * sizeof(float), cudaMemcpyHostToDevice, s0);
    cudaMemcpyAsync(d + half, h + half, (n - half) * sizeof(float), cudaMemcpyHostToDevice, s1);
    clamp01<<<(half + 255) / 256, 256, 0, s0>>>(d, half);
    clamp01<<<(n - half + 255) / 256, 256, 0, s1>>>(d + half, n - half);
    cudaMemcpyAsync(h, d, half * sizeof(float), cudaMemcpyDeviceToHost, s0);
    cudaMemcpyAsync(h + half, d + half, (n - half) * sizeof(float), cudaMemcpyDeviceToHost, s1);
    cudaStreamSynchronize(s0);
    cudaStreamSynchronize(s1);
    cudaFree(d);
}

// The same half on two streams, unordered: the same bytes.
void same_half_on_two_streams(size_t n) {
    const size_t half = n / 2;
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaStream_t s0, s1;
    cudaStreamCreate(&s0);
    cudaStreamCreate(&s1);
    cudaMemcpyAsync(d + half, h + half, (n - half) * sizeof(float), cudaMemcpyHostToDevice, s0);
    clamp01<<<(n - half + 255) / 256, 256, 0, s1>>>(d + half, n - half); //~ missing_sync
    cudaDeviceSynchronize();
    cudaFree(d);
}

// The host reads the half whose download is still in flight.
float host_reads_the_half_in_flight(const float* d, size_t n, cudaStream_t s) {
    const size_t half = n / 2;
    float* h_pinned;
    cudaMallocHost(&h_pinned, n * sizeof(float));
    cudaMemcpyAsync(h_pinned + half, d + half, (n - half) * sizeof(float), cudaMemcpyDeviceToHost, s);
    float first = h_pinned[half]; //~ missing_sync
    cudaStreamSynchronize(s);
    return first;
}

// A double buffer whose slots each have an event, waited before the slot is refilled (the
// first two rounds use fresh slots).
void ok_slot_events(float* d_acc, size_t n, int rounds) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    float* staging[2];
    float* d_in[2];
    cudaEvent_t slot_free[2];
    for (int k = 0; k < 2; ++k) {
        cudaMallocHost(&staging[k], n * sizeof(float));
        cudaMalloc(&d_in[k], n * sizeof(float));
        cudaEventCreateWithFlags(&slot_free[k], cudaEventDisableTiming);
    }
    for (int r = 0; r < rounds; ++r) {
        int k = r % 2;
        if (r >= 2) cudaEventSynchronize(slot_free[k]);
        fill(staging[k], n, r);
        cudaMemcpyAsync(d_in[k], staging[k], n * sizeof(float), cudaMemcpyHostToDevice, s);
        cudaEventRecord(slot_free[k], s);
        clamp01<<<(n + 255) / 256, 256, 0, s>>>(d_in[k], n);
    }
    cudaStreamSynchronize(s);
}

// The same ring refilled with no wait at all.
void ring_never_waited(size_t n, int rounds) {
    cudaStream_t s;
    cudaStreamCreate(&s);
    float* staging[3];
    float* d_in[3];
    for (int k = 0; k < 3; ++k) {
        cudaMallocHost(&staging[k], n * sizeof(float));
        cudaMalloc(&d_in[k], n * sizeof(float));
    }
    for (int r = 0; r < rounds; ++r) {
        int k = r % 3;
        for (size_t i = 0; i < n; ++i) staging[k][i] = float(i + r); //~ missing_sync
        cudaMemcpyAsync(d_in[k], staging[k], n * sizeof(float), cudaMemcpyHostToDevice, s);
    }
    cudaStreamSynchronize(s);
}

class ScopedStream {
  public:
    ScopedStream() { cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking); }
    ~ScopedStream() { cudaStreamDestroy(s_); }
    operator cudaStream_t() const { return s_; }

  private:
    cudaStream_t s_ = nullptr;
};

static void download(float* h, const float* d, size_t n, cudaStream_t st) {
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, st);
}

// A wrapper handed to a helper's `cudaStream_t` is its stream: synchronizing it waits.
float ok_wrapper_given_to_helper(const float* d, size_t n) {
    float* h_pinned;
    cudaMallocHost(&h_pinned, n * sizeof(float));
    ScopedStream compute;
    download(h_pinned, d, n, compute);
    cudaStreamSynchronize(compute);
    return h_pinned[0];
}

// ... and another stream's synchronize does not.
float wrapper_given_to_helper_other_synced(const float* d, size_t n) {
    float* h_pinned;
    cudaMallocHost(&h_pinned, n * sizeof(float));
    ScopedStream compute;
    ScopedStream upload;
    download(h_pinned, d, n, compute);
    cudaStreamSynchronize(upload);
    return h_pinned[0]; //~ missing_sync
}

static double host_sum(const float* p, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) s += p[i];
    return s;
}

// The left half read once its stream is done, while the right half's download still runs.
double ok_left_half_read_while_right_runs(const float* d, size_t n, cudaStream_t left, cudaStream_t right) {
    const size_t half = n / 2;
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, half * sizeof(float), cudaMemcpyDeviceToHost, left);
    cudaMemcpyAsync(h + half, d + half, half * sizeof(float), cudaMemcpyDeviceToHost, right);
    cudaStreamSynchronize(left);
    double sum = host_sum(h, half);
    cudaStreamSynchronize(right);
    return sum + host_sum(h + half, half);
}

// The same with the right half read before its stream is done.
double right_half_read_early(const float* d, size_t n, cudaStream_t left, cudaStream_t right) {
    const size_t half = n / 2;
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, half * sizeof(float), cudaMemcpyDeviceToHost, left);
    cudaMemcpyAsync(h + half, d + half, half * sizeof(float), cudaMemcpyDeviceToHost, right);
    cudaStreamSynchronize(left);
    double sum = host_sum(h, half) + h[half]; //~ missing_sync
    cudaStreamSynchronize(right);
    return sum;
}

// Tiles at an offset each round sets (`off`): upload, compute and download of one tile ordered
// by that tile's events; a round's new work is on another tile than the last round's.
void ok_tiles_ordered_by_their_events(size_t tile, int tiles, cudaStream_t up, cudaStream_t comp, cudaStream_t down) {
    float *h_src, *h_dst, *d_src, *d_dst;
    cudaMallocHost(&h_src, tile * tiles * sizeof(float));
    cudaMallocHost(&h_dst, tile * tiles * sizeof(float));
    cudaMalloc(&d_src, tile * tiles * sizeof(float));
    cudaMalloc(&d_dst, tile * tiles * sizeof(float));
    cudaEvent_t uploaded[8], computed[8];
    for (int t = 0; t < 8; ++t) {
        cudaEventCreate(&uploaded[t]);
        cudaEventCreate(&computed[t]);
    }
    for (int t = 0; t < tiles; ++t) {
        const size_t off = size_t(t) * tile;
        cudaMemcpyAsync(d_src + off, h_src + off, tile * sizeof(float), cudaMemcpyHostToDevice, up);
        cudaEventRecord(uploaded[t], up);
        cudaStreamWaitEvent(comp, uploaded[t], 0);
        clamp01<<<(tile + 255) / 256, 256, 0, comp>>>(d_src + off, tile);
        cudaMemcpyAsync(d_dst + off, d_src + off, tile * sizeof(float), cudaMemcpyDeviceToDevice, comp);
        cudaEventRecord(computed[t], comp);
        cudaStreamWaitEvent(down, computed[t], 0);
        cudaMemcpyAsync(h_dst + off, d_dst + off, tile * sizeof(float), cudaMemcpyDeviceToHost, down);
    }
    cudaStreamSynchronize(down);
    float first = h_dst[0];
    (void)first;
}

// The same tiles downloaded, but only the compute stream waited for: the whole buffer's read
// may meet any tile's download.
double tiles_read_after_the_wrong_stream(size_t tile, int tiles, cudaStream_t comp, cudaStream_t down) {
    float *h_out, *d_out;
    cudaMallocHost(&h_out, tile * tiles * sizeof(float));
    cudaMalloc(&d_out, tile * tiles * sizeof(float));
    for (int t = 0; t < tiles; ++t) {
        const size_t off = size_t(t) * tile;
        clamp01<<<(tile + 255) / 256, 256, 0, comp>>>(d_out + off, tile);
        cudaEvent_t done;
        cudaEventCreate(&done);
        cudaEventRecord(done, comp);
        cudaStreamWaitEvent(down, done, 0);
        cudaMemcpyAsync(h_out + off, d_out + off, tile * sizeof(float), cudaMemcpyDeviceToHost, down);
    }
    cudaStreamSynchronize(comp);
    double sum = 0.0;
    for (size_t i = 0; i < tile * tiles; ++i) sum += h_out[i]; //~ missing_sync
    return sum;
}

struct StageEvents {
    cudaEvent_t done;
};

// An event the analysis cannot name (made through a range's reference into a vector of
// structs) waited by the download stream: no evidence the download is unordered.
float ok_wait_on_an_event_not_followed(const float* d_in, size_t n, cudaStream_t comp, cudaStream_t down) {
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    std::vector<StageEvents> ev(2);
    for (StageEvents& e : ev) cudaEventCreate(&e.done);
    cudaMemcpyAsync(d, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice, comp);
    clamp01<<<(n + 255) / 256, 256, 0, comp>>>(d, n);
    cudaEventRecord(ev[0].done, comp);
    cudaStreamWaitEvent(down, ev[0].done, 0);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, down);
    cudaStreamSynchronize(down);
    return h[0];
}
