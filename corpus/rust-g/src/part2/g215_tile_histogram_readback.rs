//! case: per-tile luminance histograms (64 tiles x 4096 bins) computed by a kernel and read back with driver::result::memcpy_dtoh_async into a Vec, then merged on the host right away; into pageable memory the async copy returns only once it has completed, so the merge reads final data, but the 1 MiB copy is a pageable "async" copy
//! expect: pageable_async_copy=1

use std::error::Error;
use std::ffi::{c_void, CString};

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const BINS: usize = 4096;
const TILES_X: u32 = 8;
const TILES_Y: u32 = 8;

const HIST_SRC: &str = r#"
extern "C" __global__ void tile_histogram(const unsigned short* luma12, unsigned width, unsigned height,
                                          unsigned tiles_x, unsigned tiles_y, unsigned* hists) {
    unsigned tx = blockIdx.x, ty = blockIdx.y;
    unsigned tw = width / tiles_x, th = height / tiles_y;
    unsigned* h = hists + (ty * tiles_x + tx) * 4096;
    for (unsigned y = threadIdx.y; y < th; y += blockDim.y)
        for (unsigned x = threadIdx.x; x < tw; x += blockDim.x) {
            unsigned short v = luma12[(ty * th + y) * width + tx * tw + x] & 0x0fff;
            atomicAdd(&h[v], 1u);
        }
}
"#;

pub struct TileStats {
    stream: sys::CUstream,
    module: sys::CUmodule,
    kernel: sys::CUfunction,
    d_hists: CUdeviceptr,
}

impl TileStats {
    pub fn new() -> Result<Self> {
        result::init()?;
        let dev = result::device::get(0)?;
        unsafe { result::ctx::set_current(result::primary_ctx::retain(dev)?)? };
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let ptx = cudarc::nvrtc::compile_ptx(HIST_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
        let kernel = unsafe { result::module::get_function(module, CString::new("tile_histogram")?)? };
        let d_hists = unsafe { result::malloc_sync(BINS * (TILES_X * TILES_Y) as usize * 4)? };
        Ok(Self { stream, module, kernel, d_hists })
    }

    /// Global histogram of a 12-bit luma frame already on the device, and the per-tile maxima.
    pub fn analyse(&self, d_luma: CUdeviceptr, width: u32, height: u32) -> Result<(Vec<u64>, Vec<u32>)> {
        let tiles = (TILES_X * TILES_Y) as usize;
        let mut luma = d_luma;
        let mut hists = self.d_hists;
        let (mut w, mut h, mut tx, mut ty) = (width, height, TILES_X, TILES_Y);
        let mut params: [*mut c_void; 6] = [
            (&mut luma as *mut u64).cast(),
            (&mut w as *mut u32).cast(),
            (&mut h as *mut u32).cast(),
            (&mut tx as *mut u32).cast(),
            (&mut ty as *mut u32).cast(),
            (&mut hists as *mut u64).cast(),
        ];
        let mut per_tile = vec![0u32; tiles * BINS];
        unsafe {
            result::memset_d8_async(self.d_hists, 0, tiles * BINS * 4, self.stream)?;
            result::launch_kernel(self.kernel, (TILES_X, TILES_Y, 1), (32, 8, 1), 0, self.stream, &mut params)?;
            result::memcpy_dtoh_async(&mut per_tile, self.d_hists, self.stream)?; // EXPECT: pageable_async_copy
        }
        let mut global = vec![0u64; BINS];
        let mut peaks = Vec::with_capacity(tiles);
        for tile in per_tile.chunks_exact(BINS) {
            let mut peak = 0u32;
            for (g, &c) in global.iter_mut().zip(tile) {
                *g += c as u64;
                peak = peak.max(c);
            }
            peaks.push(peak);
        }
        Ok((global, peaks))
    }
}

impl Drop for TileStats {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = result::free_sync(self.d_hists);
            let _ = result::module::unload(self.module);
            let _ = result::stream::destroy(self.stream);
        }
    }
}
