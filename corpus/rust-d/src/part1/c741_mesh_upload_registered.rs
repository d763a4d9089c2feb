//! case: a terrain streamer (runtime layer) page-locks each decoded height tile in place with `register_host` and uploads it with `copy_htod_async` from the registered memory, synchronizing before the registration (and its cuMemHostUnregister) is dropped
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub const TILE_SAMPLES: usize = 513 * 513;

pub trait TileSource {
    fn decode(&mut self, tile: (i32, i32), out: &mut Vec<f32>) -> bool;
}

pub struct TerrainStreamer<S: TileSource> {
    ctx: Context,
    stream: Stream,
    source: S,
    scratch: Vec<f32>,
}

impl<S: TileSource> TerrainStreamer<S> {
    pub fn new(ctx: &Context, source: S) -> Result<Self> {
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, source, scratch: Vec::with_capacity(TILE_SAMPLES) })
    }

    pub fn stream_tiles(&mut self, tiles: &[(i32, i32)]) -> Result<Vec<((i32, i32), DeviceBuffer<f32>)>> {
        let mut out = Vec::with_capacity(tiles.len());
        for &tile in tiles {
            self.scratch.clear();
            if !self.source.decode(tile, &mut self.scratch) {
                continue;
            }
            let mut heights = self.ctx.alloc::<f32>(self.scratch.len())?;
            {
                let locked = self.ctx.register_host(&mut self.scratch[..])?;
                unsafe { self.stream.copy_htod_async(&mut heights, &locked)? };
                // The copy reads `locked` until the stream drains; unregistering (drop) comes after.
                if let Err(e) = self.stream.synchronize() {
                    std::mem::forget(locked); // the copy may still be reading: keep the pages locked
                    return Err(e);
                }
            }
            out.push((tile, heights));
        }
        Ok(out)
    }
}
