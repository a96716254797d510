//! Bundles Mermaid.js: the npm package the web UI installs
//! (`ui/node_modules/mermaid`, put there by `make setup`/`npm ci`) is
//! copied into the build, so documents draw diagrams with no network.
//! Without it the crate still builds; diagrams then come out as their
//! source with a note saying Mermaid is missing from this build.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let src = manifest.join("../../ui/node_modules/mermaid/dist/mermaid.min.js");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("mermaid.min.js");
    println!("cargo::rerun-if-changed={}", src.display());
    println!("cargo::rustc-check-cfg=cfg(baton_no_mermaid)");
    match std::fs::copy(&src, &out) {
        Ok(_) => {}
        Err(_) => {
            println!(
                "cargo::warning=Mermaid.js is not installed ({}); run `make setup` or `cd ui && npm ci`: documents will show diagrams as their source",
                src.display()
            );
            println!("cargo::rustc-cfg=baton_no_mermaid");
            std::fs::write(&out, "").unwrap();
        }
    }
}
