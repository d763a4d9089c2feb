#include <cuda.h>
#include <iostream>

int main() {
  size_t size = 1024; // Example data size
  char *hostPtr, *devicePtr;

  //Allocate host memory for persistent memory
  cudaMallocHost((void**)&hostPtr, size, cudaHostAllocWriteCombined);

  //Allocate device memory
  cudaMalloc((void**)&devicePtr, size);

  // Initialize data in host memory
  for (size_t i = 0; i < size; ++i) {
    hostPtr[i] = static_cast<char>(i % 256);
  }

  // Copy from host to device
  cudaMemcpy(devicePtr, hostPtr, size, cudaMemcpyHostToDevice);


  // Data now resides in device memory. We will now copy it back to the persistent memory in the host

  cudaMemcpy(hostPtr, devicePtr, size, cudaMemcpyDeviceToHost);

  std::cout << "Data copy completed without explicit flushing/fencing." << std::endl;

  cudaFree(devicePtr);
  cudaFreeHost(hostPtr);
  return 0;
}
