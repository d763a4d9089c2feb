//! case: a sensor-fusion step against libcudart through the case's own `extern "C"` block moves a whole point cloud with `cudaMemcpyAsync` from and to `Vec`s (pageable): both copies stage through the driver's buffer and block; reading the D2H destination afterwards is fine since a copy to pageable memory returns once done
//! expect: pageable_async_copy=2
use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

type CudaStream = *mut c_void;

const H2D: c_int = 1;
const D2H: c_int = 2;

unsafe extern "C" {
    fn cudaMalloc(p: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFree(p: *mut c_void) -> c_int;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: CudaStream) -> c_int;
    fn cudaStreamCreateWithFlags(stream: *mut CudaStream, flags: c_uint) -> c_int;
    fn cudaStreamSynchronize(stream: CudaStream) -> c_int;
    fn cudaLaunchKernel(func: *const c_void, grid: Dim3, block: Dim3, args: *mut *mut c_void, shmem: usize, stream: CudaStream) -> c_int;
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Dim3 {
    x: c_uint,
    y: c_uint,
    z: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Point {
    pub xyz: [f32; 3],
    pub intensity: f32,
}

/// One lidar revolution as the driver's decoder delivers it.
pub struct Sweep {
    pub stamp_ns: u64,
    pub points: Vec<Point>,
}

pub struct LidarFusion {
    stream: CudaStream,
    d_points: *mut c_void,
    capacity: usize,
    transform_kernel: *const c_void, // host stub registered by the CUDA side of the build
}

impl LidarFusion {
    pub fn new(capacity: usize, transform_kernel: *const c_void) -> Result<Self, c_int> {
        let mut stream = null_mut();
        let mut d_points = null_mut();
        unsafe {
            let rc = cudaStreamCreateWithFlags(&mut stream, 1);
            if rc != 0 {
                return Err(rc);
            }
            let rc = cudaMalloc(&mut d_points, capacity * std::mem::size_of::<Point>());
            if rc != 0 {
                return Err(rc);
            }
        }
        Ok(Self { stream, d_points, capacity, transform_kernel })
    }

    /// Transforms a sweep into the vehicle frame and returns it.
    pub fn to_vehicle_frame(&mut self, sweep: &Sweep) -> Result<Vec<Point>, c_int> {
        let n = sweep.points.len().min(self.capacity);
        let bytes = n * std::mem::size_of::<Point>();
        let mut out = vec![Point::default(); n];
        let mut d = self.d_points;
        let mut count = n as c_int;
        let mut args = [&mut d as *mut _ as *mut c_void, &mut count as *mut _ as *mut c_void];
        unsafe {
            cudaMemcpyAsync(self.d_points, sweep.points.as_ptr() as *const c_void, bytes, H2D, self.stream); // EXPECT: pageable_async_copy
            cudaLaunchKernel(self.transform_kernel, Dim3 { x: (n as c_uint).div_ceil(256), y: 1, z: 1 }, Dim3 { x: 256, y: 1, z: 1 }, args.as_mut_ptr(), 0, self.stream);
            let rc = cudaMemcpyAsync(out.as_mut_ptr() as *mut c_void, self.d_points, bytes, D2H, self.stream); // EXPECT: pageable_async_copy
            if rc != 0 {
                return Err(rc);
            }
        }
        let ground = out.iter().filter(|p| p.xyz[2] < 0.2).count();
        log_ground_ratio(ground, n);
        Ok(out)
    }
}

fn log_ground_ratio(ground: usize, n: usize) {
    if n > 0 && ground * 2 > n {
        eprintln!("lidar: {ground}/{n} points on the ground plane");
    }
}

impl Drop for LidarFusion {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaFree(self.d_points);
        }
    }
}
