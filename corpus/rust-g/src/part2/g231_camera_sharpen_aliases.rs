//! case: camera sharpening stage with one physical frame buffer mapped at two VMM addresses (an "ingest" alias the copy stream writes with cuMemcpyHtoDAsync, a "work" alias the compute stream's kernel reads); an event recorded after the upload orders the kernel on the compute stream behind it, and the next frame's upload waits for the kernel
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUstream};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const SHARPEN_SRC: &str = r#"
extern "C" __global__ void unsharp3(const unsigned char* frame, unsigned char* out,
                                        unsigned width, unsigned height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= (int)width || y >= (int)height) return;
    unsigned sum = 0, cnt = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= (int)width || yy >= (int)height) continue;
            sum += frame[yy * width + xx]; ++cnt;
        }
    int centre = frame[y * width + x];
    int sharp = 2 * centre - (int)(sum / cnt);
    out[y * width + x] = (unsigned char)min(max(sharp, 0), 255);
}
"#;

struct FrameAliases {
    ingest: CUdeviceptr,
    work: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
}

fn map_twice(device: i32, bytes: usize) -> Result<FrameAliases> {
    let location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
    let prop = sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location,
        win32HandleMetaData: null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    };
    let desc = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    let mut gran = 0;
    unsafe {
        sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
            .result()?;
    }
    let size = bytes.div_ceil(gran) * gran;
    let (mut handle, mut ingest, mut work) = (0, 0, 0);
    unsafe {
        sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
        sys::cuMemAddressReserve(&mut ingest, size, 0, 0, 0).result()?;
        sys::cuMemAddressReserve(&mut work, size, 0, 0, 0).result()?;
        sys::cuMemMap(ingest, size, 0, handle, 0).result()?;
        sys::cuMemMap(work, size, 0, handle, 0).result()?;
        sys::cuMemSetAccess(ingest, size, &desc, 1).result()?;
        sys::cuMemSetAccess(work, size, &desc, 1).result()?;
    }
    Ok(FrameAliases { ingest, work, size, handle })
}

pub struct Sharpener {
    uploaded: sys::CUevent,
    consumed: sys::CUevent,
    copy: CUstream,
    compute: CUstream,
    module: sys::CUmodule,
    kernel: sys::CUfunction,
    frame: FrameAliases,
    d_out: CUdeviceptr,
    width: u32,
    height: u32,
}

impl Sharpener {
    pub fn new(width: u32, height: u32) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        let (mut copy, mut compute) = (null_mut(), null_mut());
        let (mut module, mut kernel) = (null_mut(), null_mut());
        let ptx = cudarc::nvrtc::compile_ptx(SHARPEN_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let mut d_out = 0;
        let (mut uploaded, mut consumed) = (null_mut(), null_mut());
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
            sys::cuStreamCreate(&mut copy, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuStreamCreate(&mut compute, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut kernel, module, c"unsharp3".as_ptr()).result()?;
            sys::cuMemAlloc_v2(&mut d_out, (width * height) as usize).result()?;
            sys::cuEventCreate(&mut uploaded, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
            sys::cuEventCreate(&mut consumed, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
        }
        let frame = map_twice(dev, (width * height) as usize)?;
        Ok(Self { uploaded, consumed, copy, compute, module, kernel, frame, d_out, width, height })
    }

    /// `luma_pinned`: one 8-bit frame in page-locked memory; `out_pinned` receives the result.
    pub fn sharpen(&mut self, luma_pinned: *const u8, out_pinned: *mut u8) -> Result<()> {
        let bytes = (self.width * self.height) as usize;
        let (mut src, mut dst) = (self.frame.work, self.d_out);
        let (mut w, mut h) = (self.width, self.height);
        let mut params: [*mut c_void; 4] = [
            (&mut src as *mut u64).cast(),
            (&mut dst as *mut u64).cast(),
            (&mut w as *mut u32).cast(),
            (&mut h as *mut u32).cast(),
        ];
        unsafe {
            // The previous frame's kernel must be done reading before the buffer is overwritten.
            sys::cuStreamWaitEvent(self.copy, self.consumed, 0).result()?;
            sys::cuMemcpyHtoDAsync_v2(self.frame.ingest, luma_pinned.cast(), bytes, self.copy).result()?;
            sys::cuEventRecord(self.uploaded, self.copy).result()?;
            sys::cuStreamWaitEvent(self.compute, self.uploaded, 0).result()?;
            sys::cuLaunchKernel(self.kernel, w.div_ceil(16), h.div_ceil(16), 1, 16, 16, 1, 0, self.compute, params.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuEventRecord(self.consumed, self.compute).result()?;
            sys::cuMemcpyDtoHAsync_v2(out_pinned.cast(), self.d_out, bytes, self.compute).result()?;
            sys::cuStreamSynchronize(self.compute).result()?;
        }
        Ok(())
    }
}

impl Drop for Sharpener {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.copy);
            let _ = sys::cuStreamSynchronize(self.compute);
            let _ = sys::cuMemUnmap(self.frame.ingest, self.frame.size);
            let _ = sys::cuMemUnmap(self.frame.work, self.frame.size);
            let _ = sys::cuMemRelease(self.frame.handle);
            let _ = sys::cuMemAddressFree(self.frame.ingest, self.frame.size);
            let _ = sys::cuMemAddressFree(self.frame.work, self.frame.size);
            let _ = sys::cuMemFree_v2(self.d_out);
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuEventDestroy_v2(self.uploaded);
            let _ = sys::cuEventDestroy_v2(self.consumed);
            let _ = sys::cuStreamDestroy_v2(self.copy);
            let _ = sys::cuStreamDestroy_v2(self.compute);
        }
    }
}
