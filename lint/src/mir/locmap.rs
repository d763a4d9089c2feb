//! What each location refers to, as a map that copies cheaply: the fixpoint copies the state
//! at every block and joins it at every merge, and bodies hold thousands of locations. The map
//! is cut into chunks of consecutive location ids, grouped in nodes, each shared
//! (reference-counted) between the copies until one of them writes to it; a join skips the
//! nodes and chunks both sides share. A copy costs one pointer per node, a write copies one
//! node's pointers and one chunk, so the analysis of a body grows with its size, not with its
//! size squared (`lint/benches/speed` measures it).

use std::rc::Rc;

use super::loc::{LocId, LocSet};

/// Entries per chunk (consecutive location ids), and chunks per node.
const CHUNK: usize = 32;
const FANOUT: usize = 32;

type Chunk = Rc<Vec<(LocId, LocSet)>>;

#[derive(Clone, Default, PartialEq)]
struct Node {
    chunks: [Option<Chunk>; FANOUT],
}

/// A two-level tree: node `n`, chunk `c` holds the entries of ids
/// `(n * FANOUT + c) * CHUNK ..` (`CHUNK` of them), sorted. Nodes and chunks are shared
/// between copies until written.
#[derive(Clone, Default)]
pub struct LocMap {
    nodes: Vec<Option<Rc<Node>>>,
}

fn place(loc: LocId) -> (usize, usize) {
    let chunk = loc.0 as usize / CHUNK;
    (chunk / FANOUT, chunk % FANOUT)
}

impl LocMap {
    fn chunk(&self, loc: LocId) -> Option<&Chunk> {
        let (n, c) = place(loc);
        self.nodes.get(n)?.as_ref()?.chunks[c].as_ref()
    }

    pub fn get(&self, loc: &LocId) -> Option<&LocSet> {
        let chunk = self.chunk(*loc)?;
        chunk.binary_search_by_key(loc, |(k, _)| *k).ok().map(|i| &chunk[i].1)
    }

    /// The chunk of `loc`, unshared and created if needed.
    fn chunk_mut(&mut self, loc: LocId) -> &mut Vec<(LocId, LocSet)> {
        let (n, c) = place(loc);
        if self.nodes.len() <= n {
            self.nodes.resize(n + 1, None);
        }
        let node = Rc::make_mut(self.nodes[n].get_or_insert_with(Default::default));
        Rc::make_mut(node.chunks[c].get_or_insert_with(Default::default))
    }

    pub fn insert(&mut self, loc: LocId, value: LocSet) {
        let chunk = self.chunk_mut(loc);
        match chunk.binary_search_by_key(&loc, |(k, _)| *k) {
            Ok(i) => chunk[i].1 = value,
            Err(i) => chunk.insert(i, (loc, value)),
        }
    }

    pub fn remove(&mut self, loc: &LocId) -> Option<LocSet> {
        let present = self.chunk(*loc)?.binary_search_by_key(loc, |(k, _)| *k).ok()?;
        Some(self.chunk_mut(*loc).remove(present).1)
    }

    pub fn entry(&mut self, loc: LocId) -> Entry<'_> {
        Entry { map: self, loc }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&LocId, &LocSet)> {
        self.nodes
            .iter()
            .flatten()
            .flat_map(|n| n.chunks.iter().flatten())
            .flat_map(|c| c.iter().map(|(k, v)| (k, v)))
    }

    /// Adds what `other` holds (set union per location); true if anything was added. Skips
    /// the nodes and chunks both share, so a join costs what differs.
    pub fn join(&mut self, other: &LocMap) -> bool {
        let mut changed = false;
        for (n, theirs) in other.nodes.iter().enumerate() {
            let Some(theirs) = theirs else { continue };
            if self.nodes.len() <= n {
                self.nodes.resize(n + 1, None);
            }
            let mine = match &self.nodes[n] {
                Some(mine) if Rc::ptr_eq(mine, theirs) => continue,
                Some(mine) => mine.clone(),
                None => {
                    changed |= theirs.chunks.iter().flatten().any(|c| !c.is_empty());
                    self.nodes[n] = Some(theirs.clone());
                    continue;
                }
            };
            for (c, their_chunk) in theirs.chunks.iter().enumerate() {
                let Some(their_chunk) = their_chunk else { continue };
                match &mine.chunks[c] {
                    Some(my_chunk) if Rc::ptr_eq(my_chunk, their_chunk) => {}
                    None => {
                        if !their_chunk.is_empty() {
                            let node = Rc::make_mut(self.nodes[n].as_mut().unwrap());
                            node.chunks[c] = Some(their_chunk.clone());
                            changed = true;
                        }
                    }
                    Some(my_chunk) => {
                        // Only write (and so copy the chunk) when something is new.
                        let new =
                            their_chunk
                                .iter()
                                .any(|(k, v)| match my_chunk.binary_search_by_key(k, |(key, _)| *key) {
                                    Ok(j) => v.iter().any(|l| !my_chunk[j].1.contains(l)),
                                    Err(_) => true,
                                });
                        if new {
                            changed = true;
                            for (k, v) in their_chunk.iter() {
                                self.entry(*k).or_default().union_with(v);
                            }
                        } else if my_chunk.len() == their_chunk.len() && **my_chunk == **their_chunk {
                            // Equal copies: share again, so the next join skips it at once.
                            let node = Rc::make_mut(self.nodes[n].as_mut().unwrap());
                            node.chunks[c] = Some(their_chunk.clone());
                        }
                    }
                }
            }
            // Every chunk shared again: share the node too.
            if let Some(mine) = &self.nodes[n]
                && !Rc::ptr_eq(mine, theirs)
                && mine.chunks.iter().zip(&theirs.chunks).all(|(a, b)| match (a, b) {
                    (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                    (None, None) => true,
                    _ => false,
                })
            {
                self.nodes[n] = Some(theirs.clone());
            }
        }
        changed
    }
}

impl PartialEq for LocMap {
    fn eq(&self, other: &Self) -> bool {
        let empty = |n: &Node| n.chunks.iter().flatten().all(|c| c.is_empty());
        let len = self.nodes.len().max(other.nodes.len());
        (0..len).all(|i| {
            let a = self.nodes.get(i).and_then(Option::as_ref);
            let b = other.nodes.get(i).and_then(Option::as_ref);
            match (a, b) {
                (Some(a), Some(b)) => {
                    Rc::ptr_eq(a, b)
                        || a.chunks.iter().zip(&b.chunks).all(|(x, y)| match (x, y) {
                            (Some(x), Some(y)) => Rc::ptr_eq(x, y) || x == y,
                            (Some(c), None) | (None, Some(c)) => c.is_empty(),
                            (None, None) => true,
                        })
                }
                (Some(n), None) | (None, Some(n)) => empty(n),
                (None, None) => true,
            }
        })
    }
}

impl std::fmt::Debug for LocMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a LocMap {
    type Item = (&'a LocId, &'a LocSet);
    type IntoIter = Box<dyn Iterator<Item = (&'a LocId, &'a LocSet)> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

pub struct Entry<'m> {
    map: &'m mut LocMap,
    loc: LocId,
}

impl<'m> Entry<'m> {
    pub fn or_default(self) -> &'m mut LocSet {
        let loc = self.loc;
        let chunk = self.map.chunk_mut(loc);
        let i = match chunk.binary_search_by_key(&loc, |(k, _)| *k) {
            Ok(i) => i,
            Err(i) => {
                chunk.insert(i, (loc, LocSet::new()));
                i
            }
        };
        &mut chunk[i].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_share_until_written_and_joins_add() {
        let mut a = LocMap::default();
        a.insert(LocId(1), LocSet::single(LocId(10)));
        a.insert(LocId(40), LocSet::single(LocId(11)));
        let mut b = a.clone();
        assert_eq!(a, b);
        b.entry(LocId(1)).or_default().insert(LocId(12));
        b.insert(LocId(70), LocSet::single(LocId(13)));
        b.insert(LocId(5000), LocSet::single(LocId(14)));
        assert_ne!(a, b);
        assert_eq!(
            a.get(&LocId(1)).unwrap().len(),
            1,
            "writing to a copy leaves the original"
        );
        assert!(a.join(&b));
        assert!(!a.join(&b), "nothing new the second time");
        assert_eq!(a.get(&LocId(1)).unwrap().len(), 2);
        assert!(a.get(&LocId(70)).is_some());
        assert_eq!(a.remove(&LocId(40)).map(|s| s.len()), Some(1));
        assert!(a.get(&LocId(40)).is_none() && b.get(&LocId(40)).is_some());
        assert!(a.get(&LocId(5000)).is_some(), "a node of its own");
        assert_eq!(a.iter().count(), 3);
    }
}
