//! case: GPU-driven renderer's per-frame instance upload: model matrices are written by the host into cudaHostAlloc(cudaHostAllocWriteCombined) staging (write-only use, what the flag is for), culled on the GPU, and the visible count is read back into separate cudaMallocHost memory after an event synchronize
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys as drv;
use cudarc::runtime::sys as rt;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const CULL_SRC: &str = r#"
struct Mat4 { float m[16]; };
extern "C" __global__ void frustum_cull(const Mat4* instances, unsigned n, const float4* planes,
                                        float radius, unsigned* visible_ids, unsigned* visible_count) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = instances[i].m[12], y = instances[i].m[13], z = instances[i].m[14];
    for (int p = 0; p < 6; ++p) {
        float4 pl = planes[p];
        if (pl.x * x + pl.y * y + pl.z * z + pl.w < -radius) return;
    }
    unsigned slot = atomicAdd(visible_count, 1u);
    visible_ids[slot] = i;
}
"#;

pub struct InstanceUploader {
    stream: rt::cudaStream_t,
    uploaded: rt::cudaEvent_t,
    module: drv::CUmodule,
    cull: drv::CUfunction,
    staging: *mut [f32; 16],
    planes_staging: *mut [f32; 4],
    readback: *mut u32,
    d_instances: *mut c_void,
    d_planes: *mut c_void,
    d_visible: *mut c_void,
    d_count: *mut c_void,
    capacity: usize,
}

impl InstanceUploader {
    pub fn new(capacity: usize) -> Result<Self> {
        cudarc::runtime::result::device::set(0)?;
        let mut dev = 0;
        let mut ctx = null_mut();
        let (mut module, mut cull) = (null_mut(), null_mut());
        let ptx = cudarc::nvrtc::compile_ptx(CULL_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let mut stream: rt::cudaStream_t = null_mut();
        let mut uploaded: rt::cudaEvent_t = null_mut();
        let (mut staging, mut planes_staging, mut readback): (*mut c_void, *mut c_void, *mut c_void) = (null_mut(), null_mut(), null_mut());
        let (mut d_instances, mut d_planes, mut d_visible, mut d_count): (*mut c_void, *mut c_void, *mut c_void, *mut c_void) =
            (null_mut(), null_mut(), null_mut(), null_mut());
        unsafe {
            drv::cuInit(0).result()?;
            drv::cuDeviceGet(&mut dev, 0).result()?;
            drv::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            drv::cuCtxSetCurrent(ctx).result()?;
            drv::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            drv::cuModuleGetFunction(&mut cull, module, c"frustum_cull".as_ptr()).result()?;
            rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking).result()?;
            rt::cudaEventCreateWithFlags(&mut uploaded, rt::cudaEventDisableTiming).result()?;
            // Host-written, device-read only: write-combining makes the upload fast.
            rt::cudaHostAlloc(&mut staging, capacity * 64, rt::cudaHostAllocWriteCombined).result()?;
            rt::cudaHostAlloc(&mut planes_staging, 6 * 16, rt::cudaHostAllocWriteCombined).result()?;
            rt::cudaMallocHost(&mut readback, 4).result()?;
            rt::cudaMalloc(&mut d_instances, capacity * 64).result()?;
            rt::cudaMalloc(&mut d_planes, 6 * 16).result()?;
            rt::cudaMalloc(&mut d_visible, capacity * 4).result()?;
            rt::cudaMalloc(&mut d_count, 4).result()?;
        }
        Ok(Self {
            stream, uploaded, module, cull,
            staging: staging.cast(), planes_staging: planes_staging.cast(), readback: readback.cast(),
            d_instances, d_planes, d_visible, d_count, capacity,
        })
    }

    /// Writes this frame's transforms, culls them, and returns how many are visible.
    pub fn frame(&mut self, positions: &[[f32; 3]], scale: f32, planes: &[[f32; 4]; 6]) -> Result<u32> {
        let n = positions.len().min(self.capacity);
        unsafe {
            // The previous frame's copy out of the staging buffers must have finished.
            rt::cudaEventSynchronize(self.uploaded).result()?;
            let out = std::slice::from_raw_parts_mut(self.staging, n);
            for (dst, p) in out.iter_mut().zip(positions) {
                *dst = [
                    scale, 0.0, 0.0, 0.0, 0.0, scale, 0.0, 0.0, 0.0, 0.0, scale, 0.0, p[0], p[1], p[2], 1.0,
                ];
            }
            std::ptr::copy_nonoverlapping(planes.as_ptr(), self.planes_staging, 6);
            rt::cudaMemcpyAsync(self.d_instances, self.staging.cast(), n * 64, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream)
                .result()?;
            rt::cudaMemcpyAsync(self.d_planes, self.planes_staging.cast(), 96, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream)
                .result()?;
            rt::cudaEventRecord(self.uploaded, self.stream).result()?;
            rt::cudaMemsetAsync(self.d_count, 0, 4, self.stream).result()?;
        }
        let (mut inst, mut pl, mut vis, mut cnt) = (self.d_instances as u64, self.d_planes as u64, self.d_visible as u64, self.d_count as u64);
        let (mut n32, mut radius) = (n as u32, scale * 1.7320508);
        let mut params: [*mut c_void; 6] = [
            (&mut inst as *mut u64).cast(),
            (&mut n32 as *mut u32).cast(),
            (&mut pl as *mut u64).cast(),
            (&mut radius as *mut f32).cast(),
            (&mut vis as *mut u64).cast(),
            (&mut cnt as *mut u64).cast(),
        ];
        unsafe {
            drv::cuLaunchKernel(self.cull, n32.div_ceil(256).max(1), 1, 1, 256, 1, 1, 0, self.stream.cast(), params.as_mut_ptr(), null_mut())
                .result()?;
            rt::cudaMemcpyAsync(self.readback.cast(), self.d_count, 4, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream).result()?;
            rt::cudaStreamSynchronize(self.stream).result()?;
            Ok(*self.readback)
        }
    }
}

impl Drop for InstanceUploader {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaStreamSynchronize(self.stream);
            let _ = rt::cudaFreeHost(self.staging.cast());
            let _ = rt::cudaFreeHost(self.planes_staging.cast());
            let _ = rt::cudaFreeHost(self.readback.cast());
            for d in [self.d_instances, self.d_planes, self.d_visible, self.d_count] {
                let _ = rt::cudaFree(d);
            }
            let _ = rt::cudaEventDestroy(self.uploaded);
            let _ = rt::cudaStreamDestroy(self.stream);
            let _ = drv::cuModuleUnload(self.module);
        }
    }
}
