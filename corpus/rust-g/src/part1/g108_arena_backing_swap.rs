//! case: activation arena on the raw VMM API whose physical backing is swapped between a "compact" and a "roomy" allocation when the batch size changes; `swap_backing` maps the new handle at the arena's address while the old handle is still mapped there (no `cuMemUnmap` first), then releases the old one
//! expect: vmm_lifecycle=1

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const GELU_SRC: &str = r#"
extern "C" __global__ void gelu_inplace(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        x[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}
"#;

fn device_location(dev: sys::CUdevice) -> sys::CUmemLocation {
    sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev }
}

fn create_physical(dev: sys::CUdevice, bytes: usize) -> Result<sys::CUmemGenericAllocationHandle> {
    let prop = sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: device_location(dev),
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    };
    let mut h = 0;
    unsafe { sys::cuMemCreate(&mut h, bytes, &prop, 0).result()? };
    Ok(h)
}

pub struct Arena {
    dev: sys::CUdevice,
    stream: Arc<CudaStream>,
    base: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

impl Arena {
    pub fn new(stream: Arc<CudaStream>, size: usize) -> Result<Self> {
        let dev = stream.context().cu_device();
        let mut base = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, size, 0, 0, 0).result()? };
        let handle = create_physical(dev, size)?;
        let arena = Arena { dev, stream, base, size, handle };
        unsafe { sys::cuMemMap(arena.base, arena.size, 0, arena.handle, 0).result()? };
        arena.grant()?;
        Ok(arena)
    }

    fn grant(&self) -> Result<()> {
        let desc = sys::CUmemAccessDesc {
            location: device_location(self.dev),
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        unsafe { sys::cuMemSetAccess(self.base, self.size, &desc, 1).result()? };
        Ok(())
    }

    /// Moves the arena onto another physical allocation of the same size (e.g. one created
    /// on a NUMA-closer memory partition). Contents are not preserved.
    pub fn swap_backing(&mut self, new_handle: sys::CUmemGenericAllocationHandle) -> Result<()> {
        self.stream.synchronize()?;
        unsafe {
            sys::cuMemMap(self.base, self.size, 0, new_handle, 0).result()?; // EXPECT: vmm_lifecycle
            sys::cuMemRelease(self.handle).result()?;
        }
        self.handle = new_handle;
        self.grant()
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, self.size);
        }
    }
}

pub fn mlp_activations(batch_sizes: &[usize], hidden: usize) -> Result<()> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let gelu = ctx.load_module(compile_ptx(GELU_SRC)?)?.load_function("gelu_inplace")?;
    let gran = 2 << 20;
    let size = (batch_sizes.iter().copied().max().unwrap_or(1) * hidden * 4).div_ceil(gran) * gran;
    let mut arena = Arena::new(stream.clone(), size)?;

    for (i, &b) in batch_sizes.iter().enumerate() {
        if i > 0 && b != batch_sizes[i - 1] {
            let fresh = create_physical(arena.dev, size)?;
            arena.swap_backing(fresh)?;
        }
        let n = (b * hidden) as u32;
        unsafe {
            sys::cuMemsetD32Async(arena.base, 0x3f80_0000, n as usize, stream.cu_stream()).result()?;
            stream.launch_builder(&gelu).arg(&arena.base).arg(&n).launch(LaunchConfig::for_num_elems(n))?;
        }
    }
    stream.synchronize()?;
    Ok(())
}
