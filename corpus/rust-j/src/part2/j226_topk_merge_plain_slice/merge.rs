use super::shard::ShardHit;

pub fn merge_topk(partials: Vec<Vec<ShardHit>>, k: usize) -> Vec<ShardHit> {
    let mut all: Vec<ShardHit> = partials.into_iter().flatten().collect();
    all.sort_by(|a, b| b.score.total_cmp(&a.score));
    all.dedup_by_key(|h| h.doc);
    all.truncate(k);
    all
}
