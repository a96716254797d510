//! With the `cpu-variants` feature llama.cpp is shared libraries plus one
//! CPU-kernel module per processor level (`libggml-cpu-haswell.so`,
//! `libggml-cpu-zen4.so`, …). llama-cpp-sys-2 leaves them in its OUT_DIR and
//! links only the unversioned `libX.so` names into the target directory,
//! while the binaries need `libX.so.0`. This build script puts the libraries
//! and the modules beside the binaries (`target/<profile>/`), where the
//! binaries' rpath (`$ORIGIN`, .cargo/config.toml) and the kernel loader
//! (`src/kernels.rs`) find them. Without the feature it does nothing.

use std::path::{Path, PathBuf};
use std::{env, fs, io};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_CPU_VARIANTS").is_none() {
        return;
    }
    check_target();
    let backends = PathBuf::from(
        env::var_os("DEP_LLAMA_BACKENDS_DIR")
            .expect("cpu-variants: llama-cpp-sys-2 did not report its backends directory"),
    );
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // OUT_DIR is target/<profile>/build/baton-local-<hash>/out.
    let profile_dir = out
        .ancestors()
        .nth(3)
        .expect("OUT_DIR is inside the target directory");
    let built = backends
        .parent()
        .expect("the backends directory has a parent");
    let lib_dir = ["lib", "lib64"]
        .iter()
        .map(|d| built.join(d))
        .find(|d| d.join("libllama.so").exists() || d.join("libllama.dylib").exists())
        .expect("cpu-variants: llama-cpp-sys-2 built no shared libllama");
    // The libraries also go to deps/ and examples/, where llama-cpp-sys-2
    // links `libX.so -> libX.so.0` too: with the target there, its build
    // script sees the link as present when it runs again (it fails on a
    // dangling one).
    let deps = profile_dir.join("deps");
    let examples = profile_dir.join("examples");
    let copies = [
        (&lib_dir, profile_dir),
        (&lib_dir, deps.as_path()),
        (&lib_dir, examples.as_path()),
        (&backends, profile_dir),
    ];
    for (from, to) in copies {
        println!("cargo:rerun-if-changed={}", from.display());
        if !to.is_dir() {
            continue;
        }
        if let Err(e) = copy_shared_objects(from, to) {
            panic!(
                "cpu-variants: copying {} to {}: {e}",
                from.display(),
                to.display()
            );
        }
    }
}

/// The binaries must find the libraries beside them: on Linux through the
/// rpath in .cargo/config.toml's rustflags, which a RUSTFLAGS variable
/// replaces. macOS binaries would need an `@loader_path` rpath nobody
/// has built or tested.
fn check_target() {
    match env::var("CARGO_CFG_TARGET_OS").as_deref() {
        Ok("linux") => {
            let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
            if !flags.contains("rpath") {
                println!(
                    "cargo:warning=cpu-variants: RUSTFLAGS replaces .cargo/config.toml's rustflags, so the binaries have no rpath to llama.cpp's libraries beside them; add `-C link-arg=-Wl,-rpath,$ORIGIN` to it, or set LD_LIBRARY_PATH to run them"
                );
            }
        }
        Ok("macos") => panic!(
            "cpu-variants is for Linux (and Windows) builds; on macOS build with the `metal` feature (`make build` does)"
        ),
        _ => {}
    }
}

/// Copies every shared object of `from` into `to`, symbolic links as links.
fn copy_shared_objects(from: &Path, to: &Path) -> io::Result<()> {
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        let text = name.to_string_lossy();
        if !(text.contains(".so") || text.ends_with(".dylib")) {
            continue;
        }
        let dest = to.join(&name);
        // Unlinking (rather than overwriting) leaves a running binary's
        // mapped copy intact.
        match fs::remove_file(&dest) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        #[cfg(unix)]
        if entry.file_type()?.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path())?, &dest)?;
            continue;
        }
        fs::copy(entry.path(), &dest)?;
    }
    Ok(())
}
