pub struct Request {
    pub id: u64,
    /// Sparse features as (index, value).
    pub features: Vec<(u32, f32)>,
}

/// Dense, zero-padded [max_batch x dim] input.
pub fn assemble(requests: &[Request], dim: usize, max_batch: usize) -> Vec<f32> {
    let mut dense = vec![0.0f32; max_batch * dim];
    for (row, r) in requests.iter().enumerate() {
        for &(idx, v) in &r.features {
            if (idx as usize) < dim {
                dense[row * dim + idx as usize] = v;
            }
        }
    }
    dense
}
