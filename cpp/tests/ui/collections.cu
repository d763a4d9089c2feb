// Collections of workers, slots or buffers: every element is one location to the analysis, so
// a loop over them moves on to another element each round; work started on earlier elements
// used those, not this one. Within a round, an element's own work still races with its own
// access. Lines that must be reported end with an annotation; ok_* functions stay silent.
#include <cuda_runtime.h>
#include <cstring>
#include <memory>
#include <vector>

__global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

class Worker {
  public:
    explicit Worker(int n) : n_(n) {
        cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking);
        cudaMallocHost(&h_in_, n * sizeof(float));
        cudaMallocHost(&h_out_, n * sizeof(float));
        cudaMalloc(&d_in_, n * sizeof(float));
        cudaMalloc(&d_out_, n * sizeof(float));
    }
    void submit(const float* frame) {
        std::memcpy(h_in_, frame, n_ * sizeof(float));
        cudaMemcpyAsync(d_in_, h_in_, n_ * sizeof(float), cudaMemcpyHostToDevice, s_);
        scale<<<(n_ + 255) / 256, 256, 0, s_>>>(d_in_, d_out_, n_);
        cudaMemcpyAsync(h_out_, d_out_, n_ * sizeof(float), cudaMemcpyDeviceToHost, s_);
    }
    void wait() { cudaStreamSynchronize(s_); }
    float first() const {
        return h_out_[0]; //~ missing_sync
    }

  private:
    int n_;
    cudaStream_t s_;
    float *h_in_ = nullptr, *h_out_ = nullptr, *d_in_ = nullptr, *d_out_ = nullptr;
};

// Each worker gets its frame, then each is waited for: no worker's buffer is touched while its
// own work runs.
float ok_submit_all_then_wait_all(const float* frame, int n) {
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < 4; ++i) workers.emplace_back(new Worker(n));
    float sum = 0;
    for (int round = 0; round < 8; ++round) {
        for (int i = 0; i < 4; ++i) workers[i]->submit(frame);
        for (auto& w : workers) w->wait();
        for (auto& w : workers) sum += w->first();
    }
    return sum;
}

// Each worker's result is read in the round that submitted it, before its wait.
float fires_read_in_the_same_round(const float* frame, int n) {
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < 4; ++i) workers.emplace_back(new Worker(n));
    float sum = 0;
    for (int i = 0; i < 4; ++i) {
        workers[i]->submit(frame);
        sum += workers[i]->first();
        workers[i]->wait();
    }
    return sum;
}

struct Slot {
    cudaStream_t stream;
    float* pinned;
    float* dev;
};

// One slot per round, each with its own stream and buffers: filled while the earlier slots'
// copies run, waited for at the end.
void ok_slots_filled_in_turn(int n) {
    std::vector<Slot> slots(4);
    for (auto& s : slots) {
        cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking);
        cudaMallocHost(&s.pinned, n * sizeof(float));
        cudaMalloc(&s.dev, n * sizeof(float));
    }
    for (auto& s : slots) {
        for (int k = 0; k < n; ++k) s.pinned[k] = k;
        cudaMemcpyAsync(s.dev, s.pinned, n * sizeof(float), cudaMemcpyHostToDevice, s.stream);
    }
    for (auto& s : slots) cudaStreamSynchronize(s.stream);
}

// Entries pushed into a list keep what their fields held: the cache releases them wrongly.
#include <list>
struct Entry {
    void* d_tile;
    void* h_mirror;
};
class TileCache {
  public:
    void add(size_t bytes) {
        Entry e;
        cudaMalloc(&e.d_tile, bytes);
        cudaMallocHost(&e.h_mirror, bytes);
        lru_.push_front(e);
    }
    void evict_one() {
        Entry& victim = lru_.back();
        cudaFree(victim.d_tile);
        free(victim.h_mirror); //~ mismatched_free
        lru_.pop_back();
    }

  private:
    std::list<Entry> lru_;
};

void fires_cache_release(size_t bytes) {
    TileCache cache;
    cache.add(bytes);
    cache.evict_one();
}

// `std::vector<float> v(count * chunks);` with `chunks` a local: the parser reads a function
// taking a `count*`; it is a vector, not a pointer.
void fires_vector_sized_by_a_product_of_locals(float* d, cudaStream_t s) {
    const int count = 1 << 16;
    const int chunks = 8;
    std::vector<float> frame(count * chunks);
    cudaMemcpyAsync(d, frame.data(), count * sizeof(float), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
}

void ok_vector_sized_by_a_product_of_locals_and_registered(float* d, cudaStream_t s) {
    const int count = 1 << 16;
    const int chunks = 8;
    std::vector<float> frame(count * chunks);
    cudaHostRegister(frame.data(), frame.size() * sizeof(float), cudaHostRegisterDefault);
    cudaMemcpyAsync(d, frame.data(), count * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    cudaHostUnregister(frame.data());
}
