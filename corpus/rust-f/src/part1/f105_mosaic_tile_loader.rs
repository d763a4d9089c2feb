//! case: a loader thread receives decoded image tiles as `Vec<f32>` over a channel and enqueues them with the runtime layer's `copy_htod_async` straight from the Vec (pageable: staged, slow, no overlap); the 16-byte tile header next to it is too small to matter, and dropping the Vec right after the call is fine (a pageable upload returns once staged)
//! expect: pageable_async_copy=1

use std::sync::mpsc;
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Result, Stream};

const TILE_SRC: &str = r#"
extern "C" __global__ void accumulate_tile(const float* tile, const unsigned int* header, float* mosaic, unsigned int mosaic_w)
{
    unsigned int tw = header[2], th = header[3];
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= tw * th) return;
    unsigned int gx = header[0] + x % tw, gy = header[1] + x / tw;
    mosaic[gy * mosaic_w + gx] += tile[x];
}
"#;

pub struct Tile {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
    pub pixels: Vec<f32>,
}

struct TileUploader {
    stream: Stream,
    kernel: Kernel,
    scratch: DeviceBuffer<f32>,
    header: DeviceBuffer<u32>,
    mosaic: DeviceBuffer<f32>,
    mosaic_w: u32,
}

impl TileUploader {
    fn new(ctx: &Context, max_tile: usize, mosaic_w: u32, mosaic_h: u32) -> Result<Self> {
        let kernel = ctx.load_cuda(TILE_SRC)?.function("accumulate_tile")?;
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel,
            scratch: ctx.alloc_zeroed::<f32>(max_tile)?,
            header: ctx.alloc_zeroed::<u32>(4)?,
            mosaic: ctx.alloc_zeroed::<f32>((mosaic_w * mosaic_h) as usize)?,
            mosaic_w,
        })
    }

    fn push(&mut self, tile: Tile) -> Result<()> {
        let n = (tile.w * tile.h) as usize;
        if n != self.scratch.len() {
            self.stream.synchronize()?;
            self.scratch = self.stream.context().alloc::<f32>(n)?;
        }
        let header = [tile.x, tile.y, tile.w, tile.h];
        unsafe {
            self.stream.copy_htod_async(&mut self.header, &header)?;
            self.stream.copy_htod_async(&mut self.scratch, &tile.pixels)?; // EXPECT: pageable_async_copy
        }
        drop(tile);
        let cfg = LaunchConfig::for_num_elems(n as u32);
        unsafe {
            self.stream
                .launch(&self.kernel, cfg, &[&self.scratch, &self.header, &mut self.mosaic, &self.mosaic_w])?
        };
        Ok(())
    }

    fn finish(self) -> Result<Vec<f32>> {
        self.stream.synchronize()?;
        let mut out = self.stream.context().alloc_pinned::<f32>(self.mosaic.len())?;
        self.stream.copy_dtoh(&mut out, &self.mosaic)?;
        Ok(out.to_vec())
    }
}

/// Spawns the loader thread; tiles sent on the returned channel end up in the mosaic.
pub fn spawn_loader(
    ctx: Context,
    tile_side: u32,
    mosaic_w: u32,
    mosaic_h: u32,
) -> (mpsc::Sender<Tile>, thread::JoinHandle<Result<Vec<f32>>>) {
    let (tx, rx) = mpsc::channel::<Tile>();
    let handle = thread::spawn(move || {
        ctx.bind_to_thread()?;
        let mut up = TileUploader::new(&ctx, (tile_side * tile_side) as usize, mosaic_w, mosaic_h)?;
        for tile in rx {
            up.push(tile)?;
        }
        up.finish()
    });
    (tx, handle)
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let (tx, handle) = spawn_loader(ctx, 256, 1024, 1024);
    for ty in 0..4u32 {
        for tx_ in 0..4u32 {
            let pixels = vec![(ty * 4 + tx_) as f32; 256 * 256];
            let _ = tx.send(Tile { x: tx_ * 256, y: ty * 256, w: 256, h: 256, pixels });
        }
    }
    drop(tx);
    let mosaic = handle.join().expect("loader thread panicked")?;
    println!("mosaic corner {} centre {}", mosaic[0], mosaic[512 * 1024 + 512]);
    Ok(())
}
