//! Tauri's build step: reads tauri.conf.json and the capabilities.
fn main() {
    tauri_build::build()
}
