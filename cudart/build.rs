//! Links the cdylib as libcudart.so.13: its soname, and the `libcudart.so.13` version node that
//! the exports' `.symver`s name (src/unsupported.rs). The flags reach only the cdylib's link.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=cudart.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/cudart.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.13");
}
