#[derive(Clone, Copy, Debug)]
pub enum Obstacle {
    Cylinder { cx: f32, cy: f32, r: f32 },
    Plate { x0: usize, x1: usize, y0: usize, y1: usize },
}

impl Obstacle {
    fn covers(&self, x: usize, y: usize) -> bool {
        match *self {
            Obstacle::Cylinder { cx, cy, r } => {
                let (dx, dy) = (x as f32 - cx, y as f32 - cy);
                dx * dx + dy * dy <= r * r
            }
            Obstacle::Plate { x0, x1, y0, y1 } => (x0..x1).contains(&x) && (y0..y1).contains(&y),
        }
    }
}

/// One byte per lattice node: 1 = solid (bounce-back), 0 = fluid. Walls at y = 0 and y = ny - 1.
pub fn rasterize(nx: usize, ny: usize, obstacles: &[Obstacle]) -> Box<[u8]> {
    (0..nx * ny)
        .map(|i| {
            let (x, y) = (i % nx, i / nx);
            let wall = y == 0 || y == ny - 1;
            (wall || obstacles.iter().any(|o| o.covers(x, y))) as u8
        })
        .collect()
}
