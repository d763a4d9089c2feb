// case: An LRU cache of device buffers with pinned host mirrors (cudaMallocHost) evicts entries through release(), which frees the pinned mirror with the C library's free() instead of cudaFreeHost.
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <unordered_map>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr size_t kTileBytes = 4u << 20;
constexpr size_t kCapacity = 8;

struct CacheEntry {
    int key = -1;
    void* d_tile = nullptr;
    void* h_mirror = nullptr;
};

class TileCache {
public:
    explicit TileCache(cudaStream_t s) : stream_(s) {}
    ~TileCache() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        for (CacheEntry& e : lru_) release(e);
    }

    // returns the device copy of a tile, uploading it on a miss
    void* get(int key) {
        auto it = index_.find(key);
        if (it != index_.end()) {
            lru_.splice(lru_.begin(), lru_, it->second);
            return it->second->d_tile;
        }
        if (lru_.size() == kCapacity) evict_one();
        CacheEntry e;
        e.key = key;
        CUDA_CHECK(cudaMalloc(&e.d_tile, kTileBytes));
        CUDA_CHECK(cudaMallocHost(&e.h_mirror, kTileBytes));
        std::memset(e.h_mirror, key & 0xff, kTileBytes);
        CUDA_CHECK(cudaMemcpyAsync(e.d_tile, e.h_mirror, kTileBytes, cudaMemcpyHostToDevice, stream_));
        lru_.push_front(e);
        index_[key] = lru_.begin();
        return e.d_tile;
    }

private:
    void evict_one() {
        CacheEntry& victim = lru_.back();
        CUDA_CHECK(cudaStreamSynchronize(stream_)); // nothing may still read the victim
        index_.erase(victim.key);
        release(victim);
        lru_.pop_back();
    }
    static void release(CacheEntry& e) {
        CUDA_CHECK(cudaFree(e.d_tile));
        free(e.h_mirror); // EXPECT: mismatched_free
        e.d_tile = e.h_mirror = nullptr;
    }

    cudaStream_t stream_;
    std::list<CacheEntry> lru_;
    std::unordered_map<int, std::list<CacheEntry>::iterator> index_;
};

__global__ void checksum(const unsigned char* tile, size_t n, unsigned long long* out)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, (unsigned long long)tile[i]);
}

int main()
{
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long* d_sum = nullptr;
    unsigned long long h_sum = 0;
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(h_sum)));
    {
        TileCache cache(s);
        for (int req = 0; req < 32; ++req) {
            int key = (req * 5) % 13;
            auto* tile = static_cast<const unsigned char*>(cache.get(key));
            CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(h_sum), s));
            checksum<<<(unsigned)(kTileBytes / 256), 256, 0, s>>>(tile, kTileBytes, d_sum);
            CUDA_CHECK(cudaMemcpyAsync(&h_sum, d_sum, sizeof(h_sum), cudaMemcpyDeviceToHost, s));
            CUDA_CHECK(cudaStreamSynchronize(s));
            std::printf("tile %d checksum %llu\n", key, h_sum);
        }
    }
    CUDA_CHECK(cudaFree(d_sum));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
