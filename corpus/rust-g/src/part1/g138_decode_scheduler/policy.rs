pub const EOS: i32 = 2;

#[derive(Debug, Clone, PartialEq)]
pub enum SeqState {
    Running { generated: Vec<i32>, budget: u32 },
    Finished { generated: Vec<i32> },
}

impl SeqState {
    pub fn is_running(&self) -> bool {
        matches!(self, SeqState::Running { .. })
    }

    pub fn tokens(&self) -> &[i32] {
        match self {
            SeqState::Running { generated, .. } | SeqState::Finished { generated } => generated,
        }
    }
}

/// Advances every running sequence by its next token.
pub fn apply(seqs: &mut [SeqState], next: &[i32]) {
    for (seq, &tok) in seqs.iter_mut().zip(next) {
        if let SeqState::Running { generated, budget } = seq {
            generated.push(tok);
            *budget = budget.saturating_sub(1);
            if tok == EOS || *budget == 0 {
                *seq = SeqState::Finished { generated: std::mem::take(generated) };
            }
        }
    }
}
