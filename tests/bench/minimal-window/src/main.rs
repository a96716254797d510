//! A minimal Tauri window: the baseline `make bench` compares Baton's
//! cold start and idle memory against. With `--quick` it also makes a
//! second, hidden window a moment after start, which Ctrl+Shift+Space
//! shows and hides: the baseline of Baton's quick window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use tauri::{Manager, WebviewUrl, WebviewWindowBuilder};
use tauri_plugin_global_shortcut::{GlobalShortcutExt, ShortcutState};

const QUICK: &str = "quick";

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let mut builder = tauri::Builder::default();
    if quick {
        builder = builder
            .plugin(tauri_plugin_global_shortcut::Builder::new().build())
            .setup(|app| {
                app.global_shortcut().on_shortcut(
                    "CommandOrControl+Shift+Space",
                    |app, _, event| {
                        if event.state == ShortcutState::Pressed
                            && let Some(w) = app.get_webview_window(QUICK)
                        {
                            let _ = match w.is_visible().unwrap_or(false) {
                                true => w.hide(),
                                false => w.show().and_then(|()| w.set_focus()),
                            };
                        }
                    },
                )?;
                let handle = app.handle().clone();
                std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(1500));
                    let made = WebviewWindowBuilder::new(&handle, QUICK, WebviewUrl::default())
                        .title("Minimal quick question")
                        .inner_size(620.0, 460.0)
                        .decorations(false)
                        .always_on_top(true)
                        .visible(false)
                        .build();
                    if let Err(e) = made {
                        eprintln!("the quick window could not be made: {e}");
                    }
                });
                Ok(())
            });
    }
    if let Err(e) = builder.run(tauri::generate_context!()) {
        eprintln!("the minimal window could not start: {e}");
        std::process::exit(1);
    }
}
