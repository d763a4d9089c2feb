//! `--changed-since REV`: the lines a change touched, from `git diff`, so that a review sees
//! the findings its change is part of. A finding counts when any step of its chain (the
//! allocation, the copy or launch, the access, the free: every span it names) lies on a
//! changed line, not only its primary line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The changed lines of each file, by absolute path; a file new since the revision (or not
/// tracked at all) is changed everywhere.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ChangedLines {
    lines: BTreeMap<PathBuf, BTreeSet<u64>>,
    whole: BTreeSet<PathBuf>,
}

impl ChangedLines {
    /// What changed between `rev` and the working tree of the git repository holding `dir`
    /// (staged, unstaged and untracked files alike).
    pub fn since(rev: &str, dir: &Path) -> Result<ChangedLines, String> {
        let git = |args: &[&str]| -> Result<String, String> {
            let out = Command::new("git")
                .args(args)
                .current_dir(dir)
                .output()
                .map_err(|e| format!("could not run git: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "`git {}` failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let top = PathBuf::from(git(&["rev-parse", "--show-toplevel"])?.trim());
        // The revision must exist: a typo must not look like "nothing changed".
        git(&["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")])
            .map_err(|_| format!("`{rev}` is not a revision of the repository at {}", top.display()))?;
        let diff = git(&["diff", "--no-color", "--no-ext-diff", "-U0", rev, "--"])?;
        let mut changed = ChangedLines::parse_diff(&diff, &top);
        let untracked = git(&["ls-files", "--others", "--exclude-standard", "--full-name"])?;
        for file in untracked.lines().filter(|l| !l.is_empty()) {
            changed.whole.insert(top.join(file));
        }
        Ok(changed)
    }

    /// The lines of the new side of a `git diff -U0`, with paths joined to `top`.
    pub fn parse_diff(diff: &str, top: &Path) -> ChangedLines {
        let mut changed = ChangedLines::default();
        let mut file: Option<PathBuf> = None;
        // `new file mode` comes before the file's `+++` line.
        let mut new_file = false;
        for line in diff.lines() {
            if line.starts_with("diff --git ") {
                new_file = false;
                continue;
            }
            if line.starts_with("new file mode") {
                new_file = true;
                continue;
            }
            if let Some(path) = line.strip_prefix("+++ ") {
                file = match path {
                    "/dev/null" => None,
                    p => Some(top.join(p.strip_prefix("b/").unwrap_or(p))),
                };
                if new_file && let Some(f) = &file {
                    changed.whole.insert(f.clone());
                }
                continue;
            }
            let Some(hunk) = line.strip_prefix("@@ ") else { continue };
            let Some(f) = &file else { continue };
            // `@@ -a[,b] +c[,d] @@`: lines c..c+d of the new file (d = 0: a deletion after
            // line c, which touches c and the line after it).
            let Some(new) = hunk.split_whitespace().find_map(|w| w.strip_prefix('+')) else {
                continue;
            };
            let mut parts = new.splitn(2, ',');
            let start: u64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            let count: u64 = parts.next().map_or(Some(1), |s| s.parse().ok()).unwrap_or(1);
            let set = changed.lines.entry(f.clone()).or_default();
            if count == 0 {
                set.insert(start);
                set.insert(start + 1);
            } else {
                set.extend(start..start + count);
            }
        }
        changed
    }

    /// Whether any of the lines `first..=last` of `file` (an absolute path) changed.
    pub fn touches(&self, file: &Path, first: u64, last: u64) -> bool {
        let file = normalized(file);
        if self.whole.iter().any(|w| normalized(w) == file) {
            return true;
        }
        self.lines
            .iter()
            .filter(|(f, _)| normalized(f) == file)
            .any(|(_, lines)| lines.range(first..=last.max(first)).next().is_some())
    }
}

fn normalized(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/src/lib.rs b/src/lib.rs
index 1111111..2222222 100644
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -10,2 +10,3 @@ fn a() {
-    old();
+    new();
+    more();
+    again();
@@ -30 +31,0 @@ fn b() {
-    gone();
diff --git a/src/new.rs b/src/new.rs
new file mode 100644
--- /dev/null
+++ b/src/new.rs
@@ -0,0 +1,2 @@
+fn c() {}
+fn d() {}
";

    #[test]
    fn hunks_give_the_new_sides_lines() {
        let top = Path::new("/repo");
        let changed = ChangedLines::parse_diff(DIFF, top);
        let lib = top.join("src/lib.rs");
        assert!(changed.touches(&lib, 10, 10));
        assert!(changed.touches(&lib, 12, 12));
        assert!(!changed.touches(&lib, 13, 13));
        assert!(!changed.touches(&lib, 1, 9));
        assert!(changed.touches(&lib, 5, 20), "a span over a changed line");
        // A deletion after line 31 touches it and the next.
        assert!(changed.touches(&lib, 31, 31));
        assert!(changed.touches(&lib, 32, 32));
        assert!(!changed.touches(&lib, 33, 40));
        assert!(
            changed.touches(&top.join("src/new.rs"), 100, 100),
            "a new file changed everywhere"
        );
        assert!(!changed.touches(&top.join("src/other.rs"), 1, 1000));
    }
}
