/// Stand-in for a decoded, shuffled dataset shard.
pub struct SyntheticSource {
    dim: usize,
    rows: usize,
    state: u64,
}

impl SyntheticSource {
    pub fn new(dim: usize, rows: usize, seed: u64) -> Self {
        SyntheticSource { dim, rows, state: seed }
    }

    fn next_f32(&mut self) -> f32 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        (self.state >> 40) as f32 / (1u64 << 24) as f32
    }

    pub fn fill(&mut self, out: &mut [f32]) {
        let n = (self.dim * self.rows).min(out.len());
        for v in out[..n].iter_mut() {
            *v = self.next_f32();
        }
    }
}
