//! case: streaming-decode token history kept in a mirrored ring buffer (one physical allocation mapped twice back to back, so any window is contiguous); one kernel appends the new tokens through the lower mapping and, in the same launch, reads the repetition-penalty window through the upper mapping, with no `fence.proxy.alias` between the write and the read
//! expect: unfenced_vmm_alias=1

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const RING_SRC: &str = r#"
// `mirror` is the second mapping of the ring's physical pages, placed right after `ring`:
// ring[cap + i] and mirror[i] are the same bytes as ring[i].
extern "C" __global__ void append_and_window(int* ring, const int* mirror, const int* new_tok,
                                             unsigned head, unsigned n_new, unsigned cap,
                                             unsigned window, int* out) {
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < n_new; i += blockDim.x) ring[(head + i) % cap] = new_tok[i];
    __syncthreads();
    unsigned end = (head + n_new) % cap;     // one past the newest token
    unsigned start = end + cap - window;     // the window [start, start + window) never wraps
    for (unsigned j = t; j < window; j += blockDim.x) {
        unsigned idx = start + j;
        out[j] = idx < cap ? ring[idx] : mirror[idx - cap];
    }
}
"#;

pub struct TokenRing {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    base: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
    head: u32,
    cap: u32,
}

impl TokenRing {
    pub fn new(ctx: &Arc<CudaContext>, stream: Arc<CudaStream>) -> Result<Self> {
        let dev = ctx.cu_device();
        let location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let mut bytes = 0usize;
        let mut base = 0;
        let mut handle = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut bytes, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * bytes, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemMap(base, bytes, 0, handle, 0).result()?;
            sys::cuMemMap(base + bytes as u64, bytes, 0, handle, 0).result()?;
            let desc = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
            sys::cuMemSetAccess(base, bytes, &desc, 1).result()?;
            sys::cuMemSetAccess(base + bytes as u64, bytes, &desc, 1).result()?;
            sys::cuMemsetD32Async(base, 0, bytes / 4, stream.cu_stream()).result()?;
        }
        let kernel = ctx.load_module(compile_ptx(RING_SRC)?)?.load_function("append_and_window")?;
        Ok(TokenRing { stream, kernel, base, bytes, handle, head: 0, cap: (bytes / 4) as u32 })
    }

    /// Appends `new_tok` and writes the last `window` tokens (oldest first) into `out`.
    pub fn push_and_window(&mut self, new_tok: &CudaSlice<i32>, window: u32, out: &mut CudaSlice<i32>) -> Result<()> {
        let n_new = new_tok.len() as u32;
        let lower = self.base;
        let upper = self.base + self.bytes as u64;
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch
            .arg(&lower)
            .arg(&upper)
            .arg(new_tok)
            .arg(&self.head)
            .arg(&n_new)
            .arg(&self.cap)
            .arg(&window)
            .arg(out);
        unsafe { launch.launch(cfg)? }; // EXPECT: unfenced_vmm_alias
        self.head = (self.head + n_new) % self.cap;
        Ok(())
    }
}

impl Drop for TokenRing {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = sys::cuMemUnmap(self.base, self.bytes);
            let _ = sys::cuMemUnmap(self.base + self.bytes as u64, self.bytes);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.bytes);
        }
    }
}

pub fn penalised_decode(steps: usize) -> Result<()> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let mut ring = TokenRing::new(&ctx, stream.clone())?;
    let mut window = stream.alloc_zeros::<i32>(64)?;
    for step in 0..steps {
        let toks = [step as i32, (step * 7) as i32, (step * 13) as i32, 2];
        let new_tok = stream.clone_htod(&toks)?;
        ring.push_and_window(&new_tok, 64, &mut window)?;
    }
    stream.synchronize()?;
    Ok(())
}
