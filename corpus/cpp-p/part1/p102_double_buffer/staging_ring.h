#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// Two pinned host slots and two device slots, each with an event recorded after
// the last work that uses the slot.
class StagingRing {
public:
    static const int kSlots = 2;

    explicit StagingRing(size_t elems) : elems_(elems) {
        for (int i = 0; i < kSlots; ++i) {
            CHECK(cudaMallocHost(&host_[i], elems * sizeof(float)));
            CHECK(cudaMalloc(&dev_[i], elems * sizeof(float)));
            CHECK(cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming));
        }
    }
    ~StagingRing() {
        for (int i = 0; i < kSlots; ++i) {
            cudaEventSynchronize(done_[i]);
            cudaEventDestroy(done_[i]);
            cudaFree(dev_[i]);
            cudaFreeHost(host_[i]);
        }
    }
    float* host(int slot) { return host_[slot]; }
    float* dev(int slot) { return dev_[slot]; }
    cudaEvent_t done(int slot) { return done_[slot]; }
    size_t elems() const { return elems_; }

private:
    size_t elems_;
    float* host_[kSlots];
    float* dev_[kSlots];
    cudaEvent_t done_[kSlots];
};
