#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <map>
#include <mutex>
#include <vector>

// Remember what kind of memory each cached block is, so it goes back to the
// allocator that made it. (Builds without it predate pinned staging.)
#define POOL_TRACK_KIND 1

enum class MemKind { Device, Pinned };

struct Block {
    void* ptr = nullptr;
    size_t bytes = 0;
    MemKind kind = MemKind::Device;
};

// Size-bucketed cache of device and pinned blocks for a batching inference server.
class BufferPool {
public:
    ~BufferPool() { trim(); }

    Block acquire(size_t bytes, MemKind kind) {
        std::lock_guard<std::mutex> lock(mu_);
        auto& bucket = free_[key(bytes, kind)];
        if (!bucket.empty()) {
            Block b = bucket.back();
            bucket.pop_back();
            return b;
        }
        Block b;
        b.bytes = round_up(bytes);
        b.kind = kind;
        cudaError_t e = kind == MemKind::Pinned ? cudaMallocHost(&b.ptr, b.bytes)
                                                : cudaMalloc(&b.ptr, b.bytes);
        if (e != cudaSuccess) std::fprintf(stderr, "pool: allocation of %zu bytes failed\n", b.bytes);
        return b;
    }

    // The caller guarantees no work in flight still uses the block.
    void recycle(const Block& b) {
        std::lock_guard<std::mutex> lock(mu_);
        free_[key(b.bytes, b.kind)].push_back(b);
    }

    void trim() {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& kv : free_)
            for (Block& b : kv.second) release(b);
        free_.clear();
    }

private:
    static size_t round_up(size_t n) { size_t p = 4096; while (p < n) p <<= 1; return p; }
    static size_t key(size_t bytes, MemKind k) { return round_up(bytes) * 2 + (k == MemKind::Pinned); }

    static void release(Block& b) {
#if POOL_TRACK_KIND
        if (b.kind == MemKind::Pinned)
            cudaFreeHost(b.ptr);
        else
            cudaFree(b.ptr);
#else
        cudaFree(b.ptr);
#endif
        b.ptr = nullptr;
    }

    std::mutex mu_;
    std::map<size_t, std::vector<Block>> free_;
};
