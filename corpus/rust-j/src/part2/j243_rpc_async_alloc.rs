//! case: near-miss. RPC batch handler (raw driver-API FFI) takes per-request scratch from the stream-ordered allocator (`cuMemAllocAsync`), fills it from a pinned `cuMemHostAlloc` arena, and gives it back with `cuMemFreeAsync` on the same stream; the error path frees it with `cuMemFree_v2` only after `cuStreamSynchronize`, which the driver allows for async allocations
//! expect: none

use std::ffi::c_void;

type CUdeviceptr = u64;
type CUstream = *mut c_void;
type CUresult = i32;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemAllocAsync(dptr: *mut CUdeviceptr, bytesize: usize, h_stream: CUstream) -> CUresult;
    fn cuMemFreeAsync(dptr: CUdeviceptr, h_stream: CUstream) -> CUresult;
    #[link_name = "cuMemFree_v2"]
    fn cu_mem_free(dptr: CUdeviceptr) -> CUresult;
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: usize, flags: u32) -> CUresult;
    fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    #[link_name = "cuMemcpyHtoDAsync_v2"]
    fn cu_memcpy_htod_async(dst: CUdeviceptr, src: *const c_void, bytes: usize, h_stream: CUstream) -> CUresult;
    #[link_name = "cuMemcpyDtoDAsync_v2"]
    fn cu_memcpy_dtod_async(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, h_stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(h_stream: CUstream) -> CUresult;
}

const CU_MEMHOSTALLOC_PORTABLE: u32 = 0x01;

pub struct RequestArena {
    host: *mut u8,
    capacity: usize,
}

impl RequestArena {
    pub fn new(capacity: usize) -> Result<Self, CUresult> {
        let mut p = std::ptr::null_mut();
        let rc = unsafe { cuMemHostAlloc(&mut p, capacity, CU_MEMHOSTALLOC_PORTABLE) };
        if rc != 0 { Err(rc) } else { Ok(Self { host: p.cast(), capacity }) }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.host, self.capacity) }
    }
}

impl Drop for RequestArena {
    fn drop(&mut self) {
        unsafe { cuMemFreeHost(self.host.cast()) };
    }
}

pub struct BatchHandler {
    stream: CUstream,
    arena: RequestArena,
    /// Long-lived device input buffer of the model, `capacity` bytes.
    model_input: CUdeviceptr,
}

impl BatchHandler {
    pub fn new(stream: CUstream, model_input: CUdeviceptr, capacity: usize) -> Result<Self, CUresult> {
        Ok(Self { stream, arena: RequestArena::new(capacity)?, model_input })
    }

    /// Stages one request (`fill` writes its bytes into the pinned arena) into the model input.
    pub fn stage(&mut self, len: usize, fill: impl FnOnce(&mut [u8]) -> bool) -> Result<(), CUresult> {
        unsafe { cuStreamSynchronize(self.stream) };
        if !fill(&mut self.arena.bytes_mut()[..len]) {
            return Err(-1);
        }
        let mut scratch: CUdeviceptr = 0;
        let rc = unsafe { cuMemAllocAsync(&mut scratch, len, self.stream) };
        if rc != 0 {
            return Err(rc);
        }
        let rc = unsafe { cu_memcpy_htod_async(scratch, self.arena.host as *const c_void, len, self.stream) };
        if rc != 0 {
            unsafe {
                cuStreamSynchronize(self.stream);
                cu_mem_free(scratch);
            }
            return Err(rc);
        }
        let rc = unsafe { cu_memcpy_dtod_async(self.model_input, scratch, len, self.stream) };
        unsafe { cuMemFreeAsync(scratch, self.stream) };
        if rc != 0 { Err(rc) } else { Ok(()) }
    }
}

impl Drop for BatchHandler {
    fn drop(&mut self) {
        unsafe { cuStreamSynchronize(self.stream) };
    }
}
