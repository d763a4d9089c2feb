//! case: lidar voxel-occupancy pass on the runtime API: points staged in cudaMallocHost memory, occupancy grid in cudaMallocManaged memory; when a sweep fails part-way the error path drains the stream and releases both buffers with cudaFree, which is right for the managed grid but not for the pinned staging buffer (the success path uses cudaFreeHost)
//! expect: mismatched_free=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys as drv;
use cudarc::runtime::sys as rt;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const VOXEL_SRC: &str = r#"
extern "C" __global__ void voxelize(const float4* pts, unsigned n, float origin_x, float origin_y,
                                    float origin_z, float inv_voxel, unsigned dim, unsigned* occupancy) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pts[i];
    int x = (int)((p.x - origin_x) * inv_voxel);
    int y = (int)((p.y - origin_y) * inv_voxel);
    int z = (int)((p.z - origin_z) * inv_voxel);
    if (x < 0 || y < 0 || z < 0 || x >= (int)dim || y >= (int)dim || z >= (int)dim) return;
    atomicAdd(&occupancy[((size_t)z * dim + y) * dim + x], 1u);
}
"#;

pub struct Sweep<'a> {
    pub points: &'a [[f32; 4]],
    pub origin: [f32; 3],
    pub voxel: f32,
}

pub struct Voxelizer {
    stream: rt::cudaStream_t,
    module: drv::CUmodule,
    kernel: drv::CUfunction,
    d_points: *mut c_void,
    max_points: usize,
    dim: u32,
}

impl Voxelizer {
    pub fn new(max_points: usize, dim: u32) -> Result<Self> {
        cudarc::runtime::result::device::set(0)?;
        let mut dev = 0;
        let mut ctx = null_mut();
        let (mut module, mut kernel) = (null_mut(), null_mut());
        let ptx = cudarc::nvrtc::compile_ptx(VOXEL_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let mut stream: rt::cudaStream_t = null_mut();
        let mut d_points: *mut c_void = null_mut();
        unsafe {
            drv::cuInit(0).result()?;
            drv::cuDeviceGet(&mut dev, 0).result()?;
            drv::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            drv::cuCtxSetCurrent(ctx).result()?;
            drv::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            drv::cuModuleGetFunction(&mut kernel, module, c"voxelize".as_ptr()).result()?;
            rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking).result()?;
            rt::cudaMalloc(&mut d_points, max_points * 16).result()?;
        }
        Ok(Self { stream, module, kernel, d_points, max_points, dim })
    }

    fn launch(&self, n: u32, origin: [f32; 3], inv_voxel: f32, occupancy: *mut c_void) -> Result<()> {
        let (mut pts, mut occ) = (self.d_points as u64, occupancy as u64);
        let (mut n_, mut ox, mut oy, mut oz, mut iv, mut dim) = (n, origin[0], origin[1], origin[2], inv_voxel, self.dim);
        let mut params: [*mut c_void; 8] = [
            (&mut pts as *mut u64).cast(),
            (&mut n_ as *mut u32).cast(),
            (&mut ox as *mut f32).cast(),
            (&mut oy as *mut f32).cast(),
            (&mut oz as *mut f32).cast(),
            (&mut iv as *mut f32).cast(),
            (&mut dim as *mut u32).cast(),
            (&mut occ as *mut u64).cast(),
        ];
        unsafe {
            drv::cuLaunchKernel(self.kernel, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream.cast(), params.as_mut_ptr(), null_mut())
                .result()?;
        }
        Ok(())
    }

    /// Accumulates all sweeps into one occupancy grid; returns the occupied voxel count.
    pub fn occupancy(&self, sweeps: &[Sweep<'_>]) -> Result<usize> {
        let cells = (self.dim as usize).pow(3);
        let mut staging: *mut c_void = null_mut();
        let mut grid: *mut c_void = null_mut();
        unsafe {
            rt::cudaMallocHost(&mut staging, self.max_points * 16).result()?;
            rt::cudaMallocManaged(&mut grid, cells * 4, rt::cudaMemAttachGlobal).result()?;
            rt::cudaMemsetAsync(grid, 0, cells * 4, self.stream).result()?;
        }
        let run = || -> Result<()> {
            for sweep in sweeps {
                if sweep.points.len() > self.max_points {
                    return Err(format!("sweep of {} points exceeds {}", sweep.points.len(), self.max_points).into());
                }
                unsafe {
                    // The previous sweep's copy must be done before the staging buffer is refilled.
                    rt::cudaStreamSynchronize(self.stream).result()?;
                    std::ptr::copy_nonoverlapping(sweep.points.as_ptr(), staging.cast::<[f32; 4]>(), sweep.points.len());
                    rt::cudaMemcpyAsync(
                        self.d_points,
                        staging,
                        sweep.points.len() * 16,
                        rt::cudaMemcpyKind::cudaMemcpyHostToDevice,
                        self.stream,
                    )
                    .result()?;
                }
                self.launch(sweep.points.len() as u32, sweep.origin, 1.0 / sweep.voxel, grid)?;
            }
            Ok(())
        };
        if let Err(e) = run() {
            unsafe {
                let _ = rt::cudaStreamSynchronize(self.stream);
                let _ = rt::cudaFree(grid);
                let _ = rt::cudaFree(staging); // EXPECT: mismatched_free
            }
            return Err(e);
        }
        let occupied = unsafe {
            rt::cudaStreamSynchronize(self.stream).result()?;
            let occ = std::slice::from_raw_parts(grid.cast::<u32>(), cells);
            let count = occ.iter().filter(|&&c| c > 0).count();
            rt::cudaFree(grid).result()?;
            rt::cudaFreeHost(staging).result()?;
            count
        };
        Ok(occupied)
    }
}

impl Drop for Voxelizer {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaStreamSynchronize(self.stream);
            let _ = rt::cudaFree(self.d_points);
            let _ = rt::cudaStreamDestroy(self.stream);
            let _ = drv::cuModuleUnload(self.module);
        }
    }
}
