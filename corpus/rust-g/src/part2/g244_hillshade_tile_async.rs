//! case: map-tile server rendering hillshade tiles in an async fn: after the kernel and the device-to-host copy into cuMemAllocHost memory it records an event and awaits a hand-written future that polls cuEventQuery until the event completes, and only then reads the tile
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::future::Future;
use std::pin::Pin;
use std::ptr::null_mut;
use std::task::{Context, Poll, Waker};

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUevent};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const HILLSHADE_SRC: &str = r#"
extern "C" __global__ void hillshade(const float* dem, unsigned dem_w, unsigned tile_x, unsigned tile_y,
                                     unsigned tile, float azimuth, float altitude, unsigned char* out) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= tile || y >= tile) return;
    unsigned gx = tile_x * tile + x + 1, gy = tile_y * tile + y + 1;
    float dzdx = (dem[gy * dem_w + gx + 1] - dem[gy * dem_w + gx - 1]) * 0.5f;
    float dzdy = (dem[(gy + 1) * dem_w + gx] - dem[(gy - 1) * dem_w + gx]) * 0.5f;
    float slope = atanf(sqrtf(dzdx * dzdx + dzdy * dzdy));
    float aspect = atan2f(dzdy, -dzdx);
    float shade = cosf(altitude) * cosf(slope) + sinf(altitude) * sinf(slope) * cosf(azimuth - aspect);
    out[y * tile + x] = (unsigned char)(255.f * fmaxf(shade, 0.f));
}
"#;

/// Completes when `event` does (polls cuEventQuery).
pub struct EventDone {
    event: CUevent,
}

impl Future for EventDone {
    type Output = std::result::Result<(), DriverError>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match unsafe { sys::cuEventQuery(self.event) } {
            sys::CUresult::CUDA_SUCCESS => Poll::Ready(Ok(())),
            sys::CUresult::CUDA_ERROR_NOT_READY => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            e => Poll::Ready(Err(DriverError(e))),
        }
    }
}

/// A minimal executor: polls until ready.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

pub struct TileRenderer {
    stream: sys::CUstream,
    module: sys::CUmodule,
    kernel: sys::CUfunction,
    done: CUevent,
    d_dem: CUdeviceptr,
    dem_w: u32,
    d_tile: CUdeviceptr,
    h_tile: *mut u8,
    tile: u32,
}

impl TileRenderer {
    pub fn new(dem_pinned: *const f32, dem_w: u32, dem_h: u32, tile: u32) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        let (mut stream, mut module, mut kernel, mut done) = (null_mut(), null_mut(), null_mut(), null_mut());
        let ptx = cudarc::nvrtc::compile_ptx(HILLSHADE_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut d_dem, mut d_tile) = (0, 0);
        let mut h_tile: *mut c_void = null_mut();
        let dem_bytes = (dem_w * dem_h) as usize * 4;
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuEventCreate(&mut done, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut kernel, module, c"hillshade".as_ptr()).result()?;
            sys::cuMemAlloc_v2(&mut d_dem, dem_bytes).result()?;
            sys::cuMemAlloc_v2(&mut d_tile, (tile * tile) as usize).result()?;
            sys::cuMemAllocHost_v2(&mut h_tile, (tile * tile) as usize).result()?;
            sys::cuMemcpyHtoDAsync_v2(d_dem, dem_pinned.cast(), dem_bytes, stream).result()?;
        }
        Ok(Self { stream, module, kernel, done, d_dem, dem_w, d_tile, h_tile: h_tile.cast(), tile })
    }

    pub async fn render(&mut self, tx: u32, ty: u32) -> Result<Vec<u8>> {
        let (mut dem, mut out) = (self.d_dem, self.d_tile);
        let (mut w, mut x, mut y, mut t) = (self.dem_w, tx, ty, self.tile);
        let (mut az, mut alt) = (315f32.to_radians(), 45f32.to_radians());
        let mut params: [*mut c_void; 8] = [
            (&mut dem as *mut u64).cast(),
            (&mut w as *mut u32).cast(),
            (&mut x as *mut u32).cast(),
            (&mut y as *mut u32).cast(),
            (&mut t as *mut u32).cast(),
            (&mut az as *mut f32).cast(),
            (&mut alt as *mut f32).cast(),
            (&mut out as *mut u64).cast(),
        ];
        let bytes = (self.tile * self.tile) as usize;
        unsafe {
            sys::cuLaunchKernel(self.kernel, t.div_ceil(16), t.div_ceil(16), 1, 16, 16, 1, 0, self.stream, params.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuMemcpyDtoHAsync_v2(self.h_tile.cast(), self.d_tile, bytes, self.stream).result()?;
            sys::cuEventRecord(self.done, self.stream).result()?;
        }
        EventDone { event: self.done }.await?;
        Ok(unsafe { std::slice::from_raw_parts(self.h_tile, bytes) }.to_vec())
    }
}

impl Drop for TileRenderer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.d_dem);
            let _ = sys::cuMemFree_v2(self.d_tile);
            let _ = sys::cuMemFreeHost(self.h_tile.cast());
            let _ = sys::cuEventDestroy_v2(self.done);
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn render_zoom_level(r: &mut TileRenderer, n: u32) -> Result<Vec<Vec<u8>>> {
    block_on(async {
        let mut tiles = Vec::new();
        for ty in 0..n {
            for tx in 0..n {
                tiles.push(r.render(tx, ty).await?);
            }
        }
        Ok(tiles)
    })
}
