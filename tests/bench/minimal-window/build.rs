//! Tauri's build step.
fn main() {
    tauri_build::build()
}
