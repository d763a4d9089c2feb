//! case: telemetry log ring mirrored with VMM (one physical allocation mapped at base and at base + size); one kernel appends records through the first view and then gathers the newest window through the mirror view, with only __syncthreads between them and no fence.proxy.alias
//! expect: unfenced_vmm_alias=1

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const RING_SRC: &str = r#"
extern "C" __global__ void append_and_gather(unsigned int* ring, const unsigned int* mirror,
                                             const unsigned int* records, int n_records,
                                             unsigned int head, unsigned int tail, unsigned int cap,
                                             unsigned int* window, int window_len) {
    int i = threadIdx.x;
    for (int r = i; r < n_records; r += blockDim.x)
        ring[(head + r) % cap] = records[r];
    __syncthreads();
    // `mirror` is the second mapping: reading past `cap` wraps without a modulo
    for (int w = i; w < window_len; w += blockDim.x)
        window[w] = mirror[tail + w];
}
"#;

fn check(rc: sys::CUresult) -> Result<(), DriverError> {
    rc.result()
}

pub struct MirroredLog {
    stream: Arc<CudaStream>,
    func: CudaFunction,
    base: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    head: u32,
}

impl MirroredLog {
    pub fn new(ctx: &Arc<CudaContext>, size: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let dev = ctx.ordinal() as i32;
        let stream = ctx.new_stream()?;
        let func = ctx.load_module(compile_ptx(RING_SRC)?)?.load_function("append_and_gather")?;
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev },
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let access = sys::CUmemAccessDesc {
            location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev },
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        let (mut base, mut handle) = (0, 0);
        unsafe {
            check(sys::cuMemCreate(&mut handle, size, &prop, 0))?;
            check(sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0))?;
            check(sys::cuMemMap(base, size, 0, handle, 0))?;
            check(sys::cuMemMap(base + size as u64, size, 0, handle, 0))?;
            check(sys::cuMemSetAccess(base, 2 * size, &access, 1))?;
        }
        Ok(MirroredLog { stream, func, base, size, handle, head: 0 })
    }

    /// Appends `records` and gathers the `window.len()` newest entries that precede them.
    pub fn append_and_gather(&mut self, records: &CudaSlice<u32>, window: &mut CudaSlice<u32>) -> Result<(), DriverError> {
        let cap = (self.size / 4) as u32;
        let n = records.len() as i32;
        let wlen = window.len() as i32;
        let tail = (self.head + cap - (wlen as u32).min(cap)) % cap;
        let ring = self.base;
        let mirror = self.base + self.size as u64;
        let mut launch = self.stream.launch_builder(&self.func);
        launch
            .arg(&ring)
            .arg(&mirror)
            .arg(records)
            .arg(&n)
            .arg(&self.head)
            .arg(&tail)
            .arg(&cap)
            .arg(window)
            .arg(&wlen);
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 };
        unsafe { launch.launch(cfg) }?; // EXPECT: unfenced_vmm_alias
        self.head = (self.head + n as u32) % cap;
        Ok(())
    }
}

impl Drop for MirroredLog {
    fn drop(&mut self) {
        unsafe {
            let _ = self.stream.synchronize();
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemUnmap(self.base + self.size as u64, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.size);
        }
    }
}
