//! CPU references of the multi-launch workloads (`suite/multi/`): what a whole launch sequence
//! leaves in its buffers. Both follow the kernels' f32 operations in their order (the tree in
//! shared memory, each thread's sum from 0.0, the stencil's additions left to right and its one
//! multiply), so the checks are bitwise. Registered in [`crate::references`].

use crate::dtype::Value;
use crate::reference::{count, shape, Expected, RefCtx, RefError};

/// A block's tree reduction in shared memory: `s[t] += s[t + k]` for halving `k`.
fn tree(s: &mut [f32]) -> f32 {
    let mut k = s.len() / 2;
    while k > 0 {
        for t in 0..k {
            s[t] += s[t + k];
        }
        k /= 2;
    }
    s[0]
}

fn floats(v: &[f32]) -> Vec<Option<Value>> {
    v.iter().map(|&x| Some(Value::Float(f64::from(x)))).collect()
}

/// `partial_sums` then `final_sum` (the first launch's block size for both): `partial[b]` is
/// block `b`'s sum of its 2 × block elements, `out[0]` the sum of the partials.
pub(crate) fn two_pass_sum(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (n, m) = (count(c, "n")?, count(c, "m")?);
    let block = c.manifest.launch().block[0] as usize;
    if !block.is_power_of_two() || c.spec("partial")?.len < m as u64 {
        return Err(shape(format!("a power-of-two block ({block}) and `partial` of at least m = {m} elements")));
    }
    let input = c.column("in")?;
    let at = |i: usize| if i < n { input.get(i).map_or(0.0, |v| v.as_f64() as f32) } else { 0.0 };
    let mut s = vec![0f32; block];
    let partial: Vec<f32> = (0..m)
        .map(|b| {
            for (t, x) in s.iter_mut().enumerate() {
                let i = b * block * 2 + t;
                let mut v = 0.0f32;
                if i < n {
                    v = at(i);
                }
                if i + block < n {
                    v += at(i + block);
                }
                *x = v;
            }
            tree(&mut s)
        })
        .collect();
    for (t, x) in s.iter_mut().enumerate() {
        let mut v = 0.0f32;
        for p in partial.iter().skip(t).step_by(block) {
            v += p;
        }
        *x = v;
    }
    let total = tree(&mut s);
    Ok(vec![Expected { buffer: "partial".into(), values: floats(&partial) }, Expected { buffer: "out".into(), values: floats(&[total]) }])
}

/// The sequence's `repeat` Jacobi sweeps from `a` into `b`, the names swapped after each: `a`
/// ends as the last sweep's grid, `b` as the one before it.
pub(crate) fn jacobi_sweeps(c: &RefCtx) -> Result<Vec<Expected>, RefError> {
    let (nx, ny) = (count(c, "nx")?, count(c, "ny")?);
    let sweeps = c.manifest.launch().repeat;
    let grid = |name: &str| -> Result<Vec<f32>, RefError> {
        let col = c.column(name)?;
        if col.len() < nx * ny {
            return Err(shape(format!("`{name}` has {} elements for a {nx} x {ny} grid", col.len())));
        }
        Ok((0..col.len()).map(|i| col.get(i).map_or(0.0, |v| v.as_f64() as f32)).collect())
    };
    let (mut a, mut b) = (grid("a")?, grid("b")?);
    for _ in 0..sweeps {
        for y in 0..ny {
            for x in 0..nx {
                let i = y * nx + x;
                b[i] = if x == 0 || y == 0 || x == nx - 1 || y == ny - 1 {
                    a[i]
                } else {
                    0.25f32 * (((a[i - 1] + a[i + 1]) + a[i - nx]) + a[i + nx])
                };
            }
        }
        std::mem::swap(&mut a, &mut b);
    }
    Ok(vec![Expected { buffer: "a".into(), values: floats(&a) }, Expected { buffer: "b".into(), values: floats(&b) }])
}
