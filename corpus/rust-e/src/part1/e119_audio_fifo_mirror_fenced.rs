//! case: multichannel audio resampler FIFO on a VMM mirrored ring; the kernel writes new samples through the first view and reads the interpolation window through the second, with `fence.proxy.alias` between the write and the read, so the aliases are coherent
//! expect: none

use std::ffi::{c_void, CString};

use cudarc::driver::{result, sys, DriverError};
use cudarc::nvrtc::compile_ptx;

const FIFO_SRC: &str = r#"
extern "C" __global__ void push_and_resample(float* ring, const float* mirror, const float* input, int n_in,
                                             unsigned int write_pos, unsigned int read_pos, unsigned int cap,
                                             float ratio, float* out, int n_out) {
    int t = threadIdx.x;
    for (int i = t; i < n_in; i += blockDim.x)
        ring[(write_pos + i) % cap] = input[i];
    __syncthreads();
    asm volatile("fence.proxy.alias;" ::: "memory");
    for (int o = t; o < n_out; o += blockDim.x) {
        float pos = o * ratio;
        unsigned int k = (unsigned int)pos;
        float frac = pos - k;
        out[o] = (1.0f - frac) * mirror[read_pos + k] + frac * mirror[read_pos + k + 1];
    }
}
"#;

pub struct ResamplerFifo {
    func: sys::CUfunction,
    module: sys::CUmodule,
    base: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
    write_pos: u32,
    read_pos: u32,
}

impl ResamplerFifo {
    /// `bytes` must be a multiple of the allocation granularity.
    pub fn new(device: i32, bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let image = CString::new(compile_ptx(FIFO_SRC)?.to_src())?;
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: loc,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let access = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let (mut base, mut handle) = (0, 0);
        unsafe {
            let module = result::module::load_data(image.as_ptr() as *const c_void)?;
            let func = result::module::get_function(module, CString::new("push_and_resample")?)?;
            sys::cuMemAddressReserve(&mut base, 2 * bytes, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemMap(base, bytes, 0, handle, 0).result()?;
            sys::cuMemMap(base + bytes as u64, bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, 2 * bytes, &access, 1).result()?;
            Ok(ResamplerFifo { func, module, base, bytes, handle, write_pos: 0, read_pos: 0 })
        }
    }

    pub fn process(&mut self, stream: sys::CUstream, input: sys::CUdeviceptr, n_in: usize, ratio: f32, out: sys::CUdeviceptr, n_out: usize) -> Result<(), DriverError> {
        let cap = (self.bytes / 4) as u32;
        let (mut ring, mut mirror) = (self.base, self.base + self.bytes as u64);
        let (mut input, mut out) = (input, out);
        let (mut n_in_i, mut n_out_i, mut ratio) = (n_in as i32, n_out as i32, ratio);
        let (mut wp, mut rp, mut cap_v) = (self.write_pos, self.read_pos, cap);
        let mut params: Vec<*mut c_void> = vec![
            &mut ring as *mut u64 as *mut c_void,
            &mut mirror as *mut u64 as *mut c_void,
            &mut input as *mut u64 as *mut c_void,
            &mut n_in_i as *mut i32 as *mut c_void,
            &mut wp as *mut u32 as *mut c_void,
            &mut rp as *mut u32 as *mut c_void,
            &mut cap_v as *mut u32 as *mut c_void,
            &mut ratio as *mut f32 as *mut c_void,
            &mut out as *mut u64 as *mut c_void,
            &mut n_out_i as *mut i32 as *mut c_void,
        ];
        unsafe { result::launch_kernel(self.func, (1, 1, 1), (512, 1, 1), 0, stream, &mut params)? };
        self.write_pos = (self.write_pos + n_in as u32) % cap;
        self.read_pos = (self.read_pos + (n_out as f32 * ratio) as u32) % cap;
        Ok(())
    }

    pub fn close(self, stream: sys::CUstream) -> Result<(), DriverError> {
        unsafe {
            result::stream::synchronize(stream)?;
            sys::cuMemUnmap(self.base, self.bytes).result()?;
            sys::cuMemUnmap(self.base + self.bytes as u64, self.bytes).result()?;
            sys::cuMemRelease(self.handle).result()?;
            sys::cuMemAddressFree(self.base, 2 * self.bytes).result()?;
            result::module::unload(self.module)
        }
    }
}
