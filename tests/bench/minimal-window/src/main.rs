//! A minimal Tauri window: the baseline `make bench` compares Baton's
//! cold start and idle memory against.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    if let Err(e) = tauri::Builder::default().run(tauri::generate_context!()) {
        eprintln!("the minimal window could not start: {e}");
        std::process::exit(1);
    }
}
