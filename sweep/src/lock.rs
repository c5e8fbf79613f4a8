//! The output directory's lock: one sweep (or merge) writes a directory at a time.
//!
//! Two sweeps into one directory used to overwrite each other's `results.csv` and `results.json`.
//! A sweep now creates `DIR/.warpsim-sweep.lock` (exclusively, holding its process id) before it
//! runs anything and removes it when it is done; a second sweep finds the file and stops with an
//! error naming the holder. A lock left by a sweep that was killed is recognised by its process
//! being gone (Linux: no `/proc/PID`) and taken over with a warning.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::results::ResultsError;

/// Name of the lock file in the output directory.
pub const LOCK_FILE: &str = ".warpsim-sweep.lock";

/// Held while a sweep writes its output directory; dropping it releases the directory.
#[derive(Debug)]
pub struct DirLock {
    path: PathBuf,
}

impl DirLock {
    /// Takes the lock of `dir` (creating the directory), or fails naming the sweep that holds it.
    pub fn acquire(dir: &Path) -> Result<DirLock, ResultsError> {
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |source| ResultsError::Io { path: p, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let path = dir.join(LOCK_FILE);
        for _ in 0..2 {
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    writeln!(f, "{}", std::process::id()).map_err(io(&path))?;
                    return Ok(DirLock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path).unwrap_or_default();
                    let pid = holder.trim().parse::<u32>().ok();
                    if pid.is_some_and(gone) {
                        eprintln!("warning: {} was left by sweep process {} that is gone; taking it over", path.display(), holder.trim());
                        std::fs::remove_file(&path).map_err(io(&path))?;
                        continue;
                    }
                    return Err(ResultsError::Locked {
                        dir: dir.to_path_buf(),
                        holder: pid.map_or_else(|| "a sweep".to_string(), |p| format!("process {p}")),
                        lock: path,
                    });
                }
                Err(e) => return Err(io(&path)(e)),
            }
        }
        Err(ResultsError::Locked { dir: dir.to_path_buf(), holder: "a sweep started meanwhile".into(), lock: path })
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether process `pid` no longer exists (only known on Linux; elsewhere a lock is never
/// taken over).
fn gone(pid: u32) -> bool {
    cfg!(target_os = "linux") && pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_sweep_into_a_locked_directory_fails_and_a_stale_lock_is_taken_over() {
        let dir = std::env::temp_dir().join(format!("warpsim-lock-{}", std::process::id()));
        let first = DirLock::acquire(&dir).unwrap();
        let e = DirLock::acquire(&dir).unwrap_err().to_string();
        assert!(e.contains(&format!("is in use by another warpsim sweep (process {})", std::process::id())), "{e}");
        assert!(e.contains(LOCK_FILE), "{e}");
        drop(first);
        assert!(!dir.join(LOCK_FILE).exists());
        // A lock whose process is gone (pid 4194305 is above Linux's pid_max).
        std::fs::write(dir.join(LOCK_FILE), "4194305\n").unwrap();
        let taken = DirLock::acquire(&dir);
        assert_eq!(taken.is_ok(), cfg!(target_os = "linux"));
        drop(taken);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
