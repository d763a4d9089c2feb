#[derive(Default)]
pub struct Metrics {
    losses: Vec<f32>,
}

impl Metrics {
    pub fn record(&mut self, loss: f32) {
        self.losses.push(loss);
    }

    pub fn mean_last(&self, n: usize) -> Option<f32> {
        let tail = &self.losses[self.losses.len().saturating_sub(n)..];
        (!tail.is_empty()).then(|| tail.iter().sum::<f32>() / tail.len() as f32)
    }
}
