use std::collections::VecDeque;
use std::sync::mpsc;

pub struct InferenceRequest {
    pub id: u64,
    pub tokens: Vec<u32>,
    pub reply: mpsc::Sender<InferenceResponse>,
}

#[derive(Debug, Clone)]
pub struct InferenceResponse {
    pub id: u64,
    pub top_token: u32,
    pub score: f32,
}

pub struct BatchQueue {
    pending: VecDeque<InferenceRequest>,
    max_batch: usize,
}

impl BatchQueue {
    pub fn new(max_batch: usize) -> Self {
        BatchQueue { pending: VecDeque::with_capacity(max_batch), max_batch }
    }

    /// Returns false once the batch is full.
    pub fn push(&mut self, req: InferenceRequest) -> bool {
        self.pending.push_back(req);
        self.pending.len() < self.max_batch
    }

    pub fn take_batch(&mut self) -> Vec<InferenceRequest> {
        let n = self.pending.len().min(self.max_batch);
        self.pending.drain(..n).collect()
    }
}

/// Flattens the batch's prompts into one token array, padded to `seq_len` per request.
pub fn flatten_tokens(batch: &[InferenceRequest], seq_len: usize) -> Vec<u32> {
    let mut flat = vec![0u32; batch.len() * seq_len];
    for (row, req) in batch.iter().enumerate() {
        let take = req.tokens.len().min(seq_len);
        flat[row * seq_len..row * seq_len + take].copy_from_slice(&req.tokens[..take]);
    }
    flat
}
