#include <cuda.h>
#include <iostream>

__global__ void deviceCopy(char *dest, const char *src, size_t size) {
    //Assuming size is within warp size
    for(size_t i=blockIdx.x*blockDim.x + threadIdx.x; i < size; i+=blockDim.x*gridDim.x){
      dest[i] = src[i];
    }
    // This operation is not portable and its behavior is undefined. It is included to showcase what it COULD look like
    // if cuda had a direct memory fence command
    asm volatile ("sfence" : : : "memory");
}

int main() {
  size_t size = 1024;
  char *hostPtr, *devicePtr;
  char* devicePtr2;

  //Allocate host memory for persistent memory
  cudaMallocHost((void**)&hostPtr, size, cudaHostAllocWriteCombined);

  //Allocate device memory
  cudaMalloc((void**)&devicePtr, size);
    //Allocate device memory
  cudaMalloc((void**)&devicePtr2, size);

  // Initialize data in host memory
  for (size_t i = 0; i < size; ++i) {
    hostPtr[i] = static_cast<char>(i % 256);
  }

  // Copy from host to device
  cudaMemcpy(devicePtr, hostPtr, size, cudaMemcpyHostToDevice);


    // Copy from one device memory area to another using a device kernel
    size_t blockSize = 256;
    size_t gridSize = (size + blockSize - 1) / blockSize;
    deviceCopy<<<gridSize, blockSize>>>(devicePtr2, devicePtr, size);
    cudaDeviceSynchronize();


  // Data now resides in device memory (copy done with potential fences on device).
  cudaMemcpy(hostPtr, devicePtr2, size, cudaMemcpyDeviceToHost);

  // Manually flush cache lines associated with the region.
  if(msync(hostPtr, size, MS_SYNC) < 0){
     std::cerr << "msync failed" << std::endl;
     return 1;
  }

  std::cout << "Data copy completed with potential device-side fence and host-side flushing." << std::endl;

  cudaFree(devicePtr);
  cudaFree(devicePtr2);
    cudaFreeHost(hostPtr);

  return 0;
}
