#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <new>
#include <vector>

// std::allocator replacement whose storage is page-locked, so std::vector<T, PinnedAllocator<T>>
// can be the source or destination of truly asynchronous copies.
template <typename T>
struct PinnedAllocator {
    using value_type = T;

    PinnedAllocator() noexcept = default;
    template <typename U>
    PinnedAllocator(const PinnedAllocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        void* p = nullptr;
        if (cudaMallocHost(&p, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t) noexcept { cudaFreeHost(p); }
};

template <typename T, typename U>
bool operator==(const PinnedAllocator<T>&, const PinnedAllocator<U>&) { return true; }
template <typename T, typename U>
bool operator!=(const PinnedAllocator<T>&, const PinnedAllocator<U>&) { return false; }

template <typename T>
using pinned_vector = std::vector<T, PinnedAllocator<T>>;
