//! What a process has already read about a project file, kept for the rest of the process: one
//! `car check` over a monorepo reads each package.json, tsconfig, go.mod and Cargo.toml once,
//! and expands a workspace's globs once.
//!
//! Invariants: a value is computed outside the lock (two threads may both compute it; the first
//! stored wins), so a slow file system never holds other lookups; values are shared, never
//! copied.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// Values by the path they were read from.
#[derive(Debug)]
pub(crate) struct Memo<V> {
    values: Mutex<HashMap<PathBuf, Arc<V>>>,
}

impl<V> Default for Memo<V> {
    fn default() -> Memo<V> {
        Memo {
            values: Mutex::new(HashMap::new()),
        }
    }
}

impl<V> Memo<V> {
    /// The value for `path`, computed by `read` the first time.
    pub(crate) fn get(&self, path: &Path, read: impl FnOnce() -> V) -> Arc<V> {
        let known = self
            .values
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(path)
            .cloned();
        if let Some(value) = known {
            return value;
        }
        let value = Arc::new(read());
        let mut values = self.values.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(values.entry(path.to_path_buf()).or_insert(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_once() {
        let memo: Memo<u32> = Memo::default();
        let mut reads = 0;
        for _ in 0..3 {
            let value = memo.get(Path::new("a"), || {
                reads += 1;
                7
            });
            assert_eq!(*value, 7);
        }
        assert_eq!(reads, 1);
    }
}
