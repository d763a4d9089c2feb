//! Small sorted sets of ids: the sets of the abstract state are short (a handful of locations
//! or operations), so a sorted vector beats a hash set or a bit set here.

use std::fmt;
use std::marker::PhantomData;

pub trait Id: Copy + Ord {
    fn index(self) -> u32;
    fn from_index(i: u32) -> Self;
}

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct IdSet<T: Id> {
    items: Vec<u32>,
    _marker: PhantomData<T>,
}

impl<T: Id> Default for IdSet<T> {
    fn default() -> Self {
        IdSet {
            items: Vec::new(),
            _marker: PhantomData,
        }
    }
}

impl<T: Id + fmt::Debug> fmt::Debug for IdSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<T: Id> IdSet<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn single(item: T) -> Self {
        IdSet {
            items: vec![item.index()],
            _marker: PhantomData,
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn contains(&self, item: T) -> bool {
        self.items.binary_search(&item.index()).is_ok()
    }

    /// Inserts; true if it was not there.
    pub fn insert(&mut self, item: T) -> bool {
        match self.items.binary_search(&item.index()) {
            Ok(_) => false,
            Err(pos) => {
                self.items.insert(pos, item.index());
                true
            }
        }
    }

    /// Removes; true if it was there.
    pub fn remove(&mut self, item: T) -> bool {
        match self.items.binary_search(&item.index()) {
            Ok(pos) => {
                self.items.remove(pos);
                true
            }
            Err(_) => false,
        }
    }

    /// Adds every item of `other`; true if anything was added.
    pub fn union_with(&mut self, other: &Self) -> bool {
        if other.items.iter().all(|i| self.items.binary_search(i).is_ok()) {
            return false;
        }
        let mut merged = Vec::with_capacity(self.items.len() + other.items.len());
        let (mut a, mut b) = (self.items.iter().peekable(), other.items.iter().peekable());
        loop {
            match (a.peek(), b.peek()) {
                (Some(&&x), Some(&&y)) if x == y => {
                    merged.push(x);
                    a.next();
                    b.next();
                }
                (Some(&&x), Some(&&y)) if x < y => {
                    merged.push(x);
                    a.next();
                }
                (_, Some(&&y)) => {
                    merged.push(y);
                    b.next();
                }
                (Some(&&x), None) => {
                    merged.push(x);
                    a.next();
                }
                (None, None) => break,
            }
        }
        self.items = merged;
        true
    }

    pub fn intersect_with(&mut self, other: &Self) {
        self.items.retain(|i| other.items.binary_search(i).is_ok());
    }

    pub fn subtract(&mut self, other: &Self) {
        if !other.is_empty() {
            self.items.retain(|i| other.items.binary_search(i).is_err());
        }
    }

    pub fn retain(&mut self, mut keep: impl FnMut(T) -> bool) {
        self.items.retain(|&i| keep(T::from_index(i)));
    }

    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.items.iter().map(|&i| T::from_index(i))
    }

    pub fn intersects(&self, other: &Self) -> bool {
        self.iter().any(|i| other.contains(i))
    }
}

impl<T: Id> FromIterator<T> for IdSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut items: Vec<u32> = iter.into_iter().map(Id::index).collect();
        items.sort_unstable();
        items.dedup();
        IdSet {
            items,
            _marker: PhantomData,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
    struct N(u32);
    impl Id for N {
        fn index(self) -> u32 {
            self.0
        }
        fn from_index(i: u32) -> Self {
            N(i)
        }
    }

    #[test]
    fn set_operations() {
        let mut a: IdSet<N> = [N(3), N(1), N(3)].into_iter().collect();
        assert_eq!(a.iter().collect::<Vec<_>>(), [N(1), N(3)]);
        let b: IdSet<N> = [N(2), N(3), N(5)].into_iter().collect();
        assert!(a.union_with(&b));
        assert!(!a.union_with(&b));
        assert_eq!(a.iter().map(|n| n.0).collect::<Vec<_>>(), [1, 2, 3, 5]);
        a.intersect_with(&[N(2), N(5), N(9)].into_iter().collect());
        assert_eq!(a.iter().map(|n| n.0).collect::<Vec<_>>(), [2, 5]);
        a.subtract(&IdSet::single(N(2)));
        assert!(a.contains(N(5)) && !a.contains(N(2)));
        assert!(a.intersects(&b) && !a.intersects(&IdSet::single(N(7))));
    }
}
