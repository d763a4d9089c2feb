//! case: a GPU hash-join probe (cudarc's runtime::sys) copies its match counter into pinned memory, records an event after the copy and waits on it with cudaEventSynchronize before sizing the result from the counter
//! expect: none

use std::ffi::{c_void, CString};
use std::mem::size_of;
use std::ptr::null_mut;

use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaEvent_t, cudaKernel_t, cudaMemcpyKind, cudaStream_t, dim3};

const PROBE_CU: &str = r#"
// Open-addressing table of (key, payload) pairs, `slots` entries, empty key = -1.
extern "C" __global__ void probe(const long long* table_keys, const int* table_payload, int slots,
                                 const long long* probe_keys, int n,
                                 int2* out_pairs, unsigned int* out_count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long k = probe_keys[i];
    unsigned int h = (unsigned int)(k * 0x9E3779B97F4A7C15ull >> 40) % slots;
    for (int step = 0; step < slots; ++step) {
        long long t = table_keys[h];
        if (t == -1) return;
        if (t == k) {
            unsigned int at = atomicAdd(out_count, 1u);
            out_pairs[at] = make_int2(i, table_payload[h]);
        }
        h = (h + 1) % slots;
    }
}
"#;

pub struct HashTable {
    pub keys: *mut c_void,
    pub payload: *mut c_void,
    pub slots: i32,
}

pub struct ProbeOperator {
    stream: cudaStream_t,
    done: cudaEvent_t,
    kernel: cudaKernel_t,
    d_pairs: *mut c_void,
    d_count: *mut c_void,
    h_count: *mut u32,
    h_pairs: *mut [i32; 2],
    capacity: usize,
}

impl ProbeOperator {
    pub fn new(capacity: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let image = CString::new(compile_ptx(PROBE_CU)?.to_src())?;
        let mut lib = null_mut();
        let mut kernel = null_mut();
        let mut stream = null_mut();
        let mut done = null_mut();
        let (mut d_pairs, mut d_count, mut h_count, mut h_pairs) = (null_mut(), null_mut(), null_mut(), null_mut());
        unsafe {
            sys::cudaLibraryLoadData(&mut lib, image.as_ptr().cast(), null_mut(), null_mut(), 0, null_mut(), null_mut(), 0).result()?;
            sys::cudaLibraryGetKernel(&mut kernel, lib, c"probe".as_ptr()).result()?;
            sys::cudaStreamCreateWithFlags(&mut stream, sys::cudaStreamNonBlocking).result()?;
            sys::cudaEventCreateWithFlags(&mut done, sys::cudaEventDisableTiming).result()?;
            sys::cudaMalloc(&mut d_pairs, capacity * 2 * size_of::<i32>()).result()?;
            sys::cudaMalloc(&mut d_count, size_of::<u32>()).result()?;
            sys::cudaMallocHost(&mut h_count, size_of::<u32>()).result()?;
            sys::cudaMallocHost(&mut h_pairs, capacity * 2 * size_of::<i32>()).result()?;
        }
        Ok(Self { stream, done, kernel, d_pairs, d_count, h_count: h_count.cast(), h_pairs: h_pairs.cast(), capacity })
    }

    fn wait_for_copies(&self) -> Result<(), RuntimeError> {
        unsafe {
            sys::cudaEventRecord(self.done, self.stream).result()?;
            sys::cudaEventSynchronize(self.done).result()
        }
    }

    pub fn probe(&mut self, table: &HashTable, mut probe_keys: *mut c_void, n: i32) -> Result<Vec<(i32, i32)>, RuntimeError> {
        let (mut tk, mut tp, mut slots, mut n) = (table.keys, table.payload, table.slots, n);
        unsafe {
            sys::cudaMemsetAsync(self.d_count, 0, size_of::<u32>(), self.stream).result()?;
            let mut args: [*mut c_void; 7] = [
                (&mut tk as *mut *mut c_void).cast(),
                (&mut tp as *mut *mut c_void).cast(),
                (&mut slots as *mut i32).cast(),
                (&mut probe_keys as *mut *mut c_void).cast(),
                (&mut n as *mut i32).cast(),
                (&mut self.d_pairs as *mut *mut c_void).cast(),
                (&mut self.d_count as *mut *mut c_void).cast(),
            ];
            let grid = dim3 { x: (n as u32).div_ceil(256), y: 1, z: 1 };
            let block = dim3 { x: 256, y: 1, z: 1 };
            sys::cudaLaunchKernel(self.kernel as *const c_void, grid, block, args.as_mut_ptr(), 0, self.stream).result()?;
            sys::cudaMemcpyAsync(self.h_count.cast(), self.d_count, size_of::<u32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream).result()?;
        }
        self.wait_for_copies()?;
        let matches = (unsafe { self.h_count.read() } as usize).min(self.capacity);
        if matches == 0 {
            return Ok(Vec::new());
        }
        unsafe {
            sys::cudaMemcpyAsync(self.h_pairs.cast(), self.d_pairs, matches * 2 * size_of::<i32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream).result()?;
        }
        self.wait_for_copies()?;
        let pairs = unsafe { std::slice::from_raw_parts(self.h_pairs, matches) };
        Ok(pairs.iter().map(|&[row, payload]| (row, payload)).collect())
    }
}

impl Drop for ProbeOperator {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaStreamSynchronize(self.stream);
            let _ = sys::cudaFreeHost(self.h_pairs.cast());
            let _ = sys::cudaFreeHost(self.h_count.cast());
            let _ = sys::cudaFree(self.d_count);
            let _ = sys::cudaFree(self.d_pairs);
            let _ = sys::cudaEventDestroy(self.done);
            let _ = sys::cudaStreamDestroy(self.stream);
        }
    }
}
