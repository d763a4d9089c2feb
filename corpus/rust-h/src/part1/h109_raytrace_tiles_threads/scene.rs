#[derive(Debug, Clone, Copy)]
pub struct Camera {
    pub origin: [f32; 3],
    pub look_at: [f32; 3],
    pub fov_deg: f32,
}

#[derive(Debug, Clone, Copy)]
pub struct Tile {
    pub x0: usize,
    pub y0: usize,
    pub w: usize,
    pub h: usize,
}

impl Camera {
    /// The eight floats the kernel needs for one tile.
    pub fn tile_params(&self, t: &Tile, width: usize, height: usize) -> [f32; 8] {
        let aspect = width as f32 / height as f32;
        let scale = (self.fov_deg.to_radians() * 0.5).tan();
        [
            self.origin[0],
            self.origin[1],
            self.origin[2],
            scale * aspect,
            scale,
            t.x0 as f32 / width as f32,
            t.y0 as f32 / height as f32,
            1.0 / width as f32,
        ]
    }
}

pub fn tiles(width: usize, height: usize, size: usize) -> Vec<Tile> {
    (0..height)
        .step_by(size)
        .flat_map(|y0| {
            (0..width).step_by(size).map(move |x0| Tile { x0, y0, w: size.min(width - x0), h: size.min(height - y0) })
        })
        .collect()
}

pub fn blit(frame: &mut [f32], width: usize, tile: &Tile, rgb: &[f32]) {
    for row in 0..tile.h {
        let dst = 3 * ((tile.y0 + row) * width + tile.x0);
        let src = 3 * row * 64;
        frame[dst..dst + 3 * tile.w].copy_from_slice(&rgb[src..src + 3 * tile.w]);
    }
}
