//! case: tiled path tracer; scoped worker threads each own a stream and a plain pinned tile buffer, copy the tile back, synchronize their stream, and only then send a `Vec` copy of the tile over a channel to the main thread that assembles the frame
//! expect: none

pub mod render;
pub mod scene;

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use cudarc::driver::CudaContext;

pub use render::TileRenderer;
pub use scene::{Camera, Tile};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

pub fn render_frame(camera: Camera, width: usize, height: usize, workers: usize) -> Result<Vec<f32>, BoxError> {
    let ctx = CudaContext::new(0)?;
    let tiles = Mutex::new(scene::tiles(width, height, 64).into_iter());
    let (tx, rx) = mpsc::channel::<(Tile, Vec<f32>)>();

    std::thread::scope(|scope| -> Result<(), BoxError> {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let tx = tx.clone();
                let ctx = Arc::clone(&ctx);
                let tiles = &tiles;
                scope.spawn(move || -> Result<(), BoxError> {
                    let mut renderer = TileRenderer::new(&ctx, 64 * 64)?;
                    loop {
                        let next = tiles.lock().unwrap().next();
                        let Some(tile) = next else { break };
                        let rgb = renderer.render(&camera.tile_params(&tile, width, height))?;
                        tx.send((tile, rgb))?;
                    }
                    Ok(())
                })
            })
            .collect();
        drop(tx);
        for h in handles {
            h.join().expect("render worker panicked")?;
        }
        Ok(())
    })?;

    let mut frame = vec![0f32; 3 * width * height];
    for (tile, rgb) in rx.iter() {
        scene::blit(&mut frame, width, &tile, &rgb);
    }
    Ok(frame)
}
