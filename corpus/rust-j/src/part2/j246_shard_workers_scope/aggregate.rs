use std::collections::BTreeMap;

use super::worker::Partial;

#[derive(Debug, Default)]
pub struct Totals {
    pub by_class: BTreeMap<u16, u64>,
    pub partials: usize,
}

pub fn fold(parts: impl Iterator<Item = Partial>) -> Totals {
    let mut t = Totals::default();
    for p in parts {
        t.partials += 1;
        for (class, n) in p.counts.iter().enumerate() {
            *t.by_class.entry((class as u16 + 1) * 100).or_default() += *n as u64;
        }
    }
    t
}
