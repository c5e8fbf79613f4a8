//! Slurm job-array scripts for a sharded sweep: `sweep.sbatch` runs shard `$SLURM_ARRAY_TASK_ID`
//! of N per array task (all tasks share one cache directory, whose entries are written
//! atomically), and `merge.sbatch`, submitted with a dependency on the array, joins the shards.

use std::path::Path;

/// Quotes a word for bash (single quotes; embedded single quotes closed and escaped).
pub fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The two scripts' text: (`sweep.sbatch`, `merge.sbatch`). `exe` is the warpsim binary, `cwd`
/// the directory relative paths in `args` start from, `args` the `sweep` arguments that
/// reproduce the sweep (without `-o`, `--shard`, `--emit`), `out` the output directory (absolute),
/// `title` a comment.
#[allow(clippy::too_many_arguments)]
pub fn scripts(exe: &Path, cwd: &Path, args: &[String], out: &Path, shards: usize, cpus: usize, title: &str, runs: usize) -> (String, String) {
    let exe = quote(&exe.display().to_string());
    let out_q = |rest: &str| quote(&out.join(rest).display().to_string());
    let args: Vec<String> = args.iter().map(|a| quote(a)).collect();
    let title = title.replace('\n', " ");
    let sweep = format!(
        "#!/bin/bash\n\
         # warpsim sweep{}: {runs} runs in {shards} shards, one per array task.\n\
         # Submit the array, then the merge once every shard has succeeded:\n\
         #   jobid=$(sbatch --parsable {sweep_sh})\n\
         #   sbatch --dependency=afterok:$jobid {merge_sh}\n\
         #SBATCH --job-name=warpsim-sweep\n\
         #SBATCH --array=0-{last}\n\
         #SBATCH --cpus-per-task={cpus}\n\
         #SBATCH --output={log}\n\
         set -euo pipefail\n\
         cd {cwd}\n\
         {exe} sweep {args} --cache {cache} --jobs \"${{SLURM_CPUS_PER_TASK:-{cpus}}}\" --quiet \\\n    \
         --shard \"$SLURM_ARRAY_TASK_ID/{shards}\" -o {shard_dir}\"$SLURM_ARRAY_TASK_ID\"\n",
        if title.is_empty() { String::new() } else { format!(" \"{title}\"") },
        sweep_sh = out_q("sweep.sbatch"),
        merge_sh = out_q("merge.sbatch"),
        last = shards - 1,
        log = out_q("slurm/%x-%A_%a.out"),
        args = args.join(" "),
        cache = out_q("cache"),
        shard_dir = out_q("shard-"),
        cwd = quote(&cwd.display().to_string()),
    );
    let parts: Vec<String> = (0..shards).map(|i| out_q(&format!("shard-{i}/results.json"))).collect();
    let merge = format!(
        "#!/bin/bash\n\
         # Joins the {shards} shards of {sweep_sh} into {out_dir}/results.{{csv,json}}.\n\
         #SBATCH --job-name=warpsim-sweep-merge\n\
         #SBATCH --output={log}\n\
         set -euo pipefail\n\
         {exe} sweep merge {parts} -o {out_dir}\n",
        sweep_sh = out_q("sweep.sbatch"),
        out_dir = quote(&out.display().to_string()),
        log = out_q("slurm/%x-%j.out"),
        parts = parts.join(" "),
    );
    (sweep, merge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote("l2.size_kib=1,2"), "l2.size_kib=1,2");
        assert_eq!(quote("it's a b"), r"'it'\''s a b'");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn array_and_merge_lines() {
        let (s, m) = scripts(Path::new("/opt/warpsim"), Path::new("/w"), &["--set".into(), "l2.size_kib=1,2".into()], Path::new("/w/out dir"), 4, 2, "t", 8);
        assert!(s.contains("#SBATCH --array=0-3\n"), "{s}");
        assert!(s.contains("cd /w\n/opt/warpsim sweep --set l2.size_kib=1,2 --cache '/w/out dir/cache'"), "{s}");
        assert!(s.contains("--shard \"$SLURM_ARRAY_TASK_ID/4\" -o '/w/out dir/shard-'\"$SLURM_ARRAY_TASK_ID\""), "{s}");
        assert!(m.contains("sweep merge '/w/out dir/shard-0/results.json' '/w/out dir/shard-1/results.json'"), "{m}");
        assert!(m.ends_with("-o '/w/out dir'\n"), "{m}");
    }
}
