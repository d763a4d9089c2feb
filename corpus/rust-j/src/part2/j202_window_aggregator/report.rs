#[derive(Debug, Clone, PartialEq)]
pub struct WindowReport {
    pub seq: u64,
    pub total: f64,
    pub hottest_window: Option<usize>,
    pub sums: Vec<f32>,
}

impl WindowReport {
    pub fn from_sums(seq: u64, sums: &[f32]) -> Self {
        let total = sums.iter().map(|&s| s as f64).sum();
        let hottest_window = sums
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.partial_cmp(b.1).unwrap_or(std::cmp::Ordering::Equal))
            .map(|(i, _)| i);
        Self { seq, total, hottest_window, sums: sums.to_vec() }
    }
}
