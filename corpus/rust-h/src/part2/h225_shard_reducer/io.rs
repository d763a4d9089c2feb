#[derive(Debug, Clone, Copy, Default)]
pub struct ShardStats {
    pub l2: f64,
    pub max_abs: f32,
    pub zeros: usize,
}

pub fn summarize(grads: &[f32]) -> ShardStats {
    grads.iter().fold(ShardStats::default(), |mut s, &g| {
        s.l2 += (g as f64) * (g as f64);
        s.max_abs = s.max_abs.max(g.abs());
        s.zeros += (g == 0.0) as usize;
        s
    })
}
