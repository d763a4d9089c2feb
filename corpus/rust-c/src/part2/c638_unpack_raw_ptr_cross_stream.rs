//! case: a bit-unpacking kernel is launched on a compute stream with the output's raw device pointer, taken with `device_ptr_mut` whose guard is discarded before the launch, so cudarc records the write event before the kernel; the copy stream's `memcpy_dtoh` of that output then waits for nothing
//! expect: missing_sync=1

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const UNPACK_SRC: &str = r#"
extern "C" __global__ void unpack_bits(const unsigned* packed, unsigned* out, unsigned width, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long bit = (unsigned long long)i * width;
    unsigned w = bit >> 5, off = bit & 31;
    unsigned long long pair = packed[w] | ((unsigned long long)packed[w + 1] << 32);
    out[i] = (unsigned)((pair >> off) & ((1ull << width) - 1));
}
"#;

pub struct BitUnpacker {
    compute: Arc<CudaStream>,
    copy: Arc<CudaStream>,
    unpack: CudaFunction,
    out: CudaSlice<u32>,
    out_host: PinnedHostSlice<u32>,
}

impl BitUnpacker {
    pub fn new(ctx: &Arc<CudaContext>, max_values: usize) -> Result<Self, Box<dyn Error>> {
        let compute = ctx.new_stream()?;
        let copy = ctx.new_stream()?;
        Ok(Self {
            unpack: ctx.load_module(compile_ptx(UNPACK_SRC)?)?.load_function("unpack_bits")?,
            out: compute.alloc_zeros::<u32>(max_values)?,
            out_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(max_values, 0)? },
            compute,
            copy,
        })
    }

    /// Unpacks `n` values of `width` bits from `packed` (device) and returns them on the host.
    pub fn unpack(&mut self, packed: &CudaSlice<u32>, width: u32, n: u32) -> Result<Vec<u32>, Box<dyn Error>> {
        // The kernel takes plain pointers (it is shared with a C++ code path).
        let (packed_ptr, _read_guard) = packed.device_ptr(&self.compute);
        let (out_ptr, _) = self.out.device_ptr_mut(&self.compute);
        unsafe {
            self.compute
                .launch_builder(&self.unpack)
                .arg(&packed_ptr)
                .arg(&out_ptr)
                .arg(&width)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(n))?;
        }
        drop(_read_guard);

        // Overlap the download with the next batch's decode on `compute`.
        self.copy.memcpy_dtoh(&self.out, &mut self.out_host)?; // EXPECT: missing_sync
        self.copy.synchronize()?;
        Ok(self.out_host.as_slice()?[..n as usize].to_vec())
    }
}
