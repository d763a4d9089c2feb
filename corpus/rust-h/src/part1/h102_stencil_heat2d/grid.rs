/// A uniform 2D grid with Dirichlet boundaries.
#[derive(Debug, Clone, Copy)]
pub struct Grid {
    pub nx: usize,
    pub ny: usize,
    pub dx: f32,
    pub alpha: f32,
}

impl Grid {
    pub fn cells(&self) -> usize {
        self.nx * self.ny
    }

    /// Largest stable explicit time step (CFL for the 5-point Laplacian).
    pub fn stable_dt(&self) -> f32 {
        0.2 * self.dx * self.dx / self.alpha
    }

    /// A hot square in the middle of a cold plate.
    pub fn initial_condition(&self, out: &mut [f32]) {
        let (cx, cy) = (self.nx / 2, self.ny / 2);
        let r = self.nx.min(self.ny) / 8;
        out.iter_mut().enumerate().for_each(|(idx, t)| {
            let (x, y) = (idx % self.nx, idx / self.nx);
            *t = if x.abs_diff(cx) < r && y.abs_diff(cy) < r { 100.0 } else { 0.0 };
        });
    }
}
