#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

// A batch of sequencing reads: 2-bit packed bases staged in pinned memory, mirrored on the device.
class ReadBatch {
public:
    ReadBatch(size_t max_reads, size_t read_len)
        : max_reads_(max_reads), read_len_(read_len), bytes_(max_reads * read_len) {
        cudaHostAlloc(reinterpret_cast<void**>(&h_bases_), bytes_, cudaHostAllocPortable);
        cudaMalloc(&d_bases_, bytes_);
        cudaMalloc(&d_gc_, max_reads_ * sizeof(uint32_t));
        cudaMallocHost(&h_gc_, max_reads_ * sizeof(uint32_t));
    }

    virtual ~ReadBatch() {
        cudaFree(d_bases_);
        cudaFree(d_gc_);
        cudaFreeHost(h_gc_);
        cudaFree(h_bases_);   // pinned host memory from cudaHostAlloc
    }

    size_t fill(const std::vector<std::string>& reads) {
        count_ = reads.size() < max_reads_ ? reads.size() : max_reads_;
        for (size_t i = 0; i < count_; ++i) {
            std::memset(h_bases_ + i * read_len_, 'N', read_len_);
            std::memcpy(h_bases_ + i * read_len_, reads[i].data(),
                        reads[i].size() < read_len_ ? reads[i].size() : read_len_);
        }
        return count_;
    }

    uint8_t* host() { return h_bases_; }
    uint8_t* device() { return d_bases_; }
    uint32_t* device_gc() { return d_gc_; }
    uint32_t* host_gc() { return h_gc_; }
    size_t count() const { return count_; }
    size_t read_len() const { return read_len_; }
    size_t bytes() const { return count_ * read_len_; }

private:
    size_t max_reads_, read_len_, bytes_;
    size_t count_ = 0;
    uint8_t* h_bases_ = nullptr;
    uint8_t* d_bases_ = nullptr;
    uint32_t* d_gc_ = nullptr;
    uint32_t* h_gc_ = nullptr;
};
