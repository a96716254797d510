//! Baton's place on the desktop, through Tauri's plugins: the tray icon
//! and its menu, the quick window a global shortcut opens near the
//! pointer, closing to the tray, one instance (a second launch shows this
//! one and attaches the files it was given), starting at login and
//! notifications when a chat in the background needs the user; the main
//! window's size and place are kept between runs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use baton_engine::api::SessionId;
use baton_engine::api::settings::{DesktopSettings, Language};
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{MouseButton, MouseButtonState, TrayIconBuilder, TrayIconEvent};
use tauri::{AppHandle, Manager, PhysicalPosition, WebviewUrl, WebviewWindow, WindowEvent};
use tauri_plugin_autostart::ManagerExt as _;
use tauri_plugin_global_shortcut::{GlobalShortcutExt, Shortcut, ShortcutState};
use tauri_plugin_window_state::{AppHandleExt as _, StateFlags};
use tauri_specta::Event;

use crate::dto::{
    DesktopStatus, LanguageChanged, MainWindowRequest, Pane, QuickWindowShown, WindowRequest,
};
use crate::i18n;
use crate::state::{AppState, lock};

/// The command-line flag that starts Baton in the tray, its window
/// hidden (what starting at login passes).
pub const TRAY_FLAG: &str = "--tray";

/// The tray icon's id.
const TRAY_ID: &str = "baton";

/// How far from the pointer the quick window opens, in pixels.
const POINTER_GAP: i32 = 12;

/// What the shell holds: whether the tray icon exists and the global
/// shortcuts as registered (or why one is not).
#[derive(Default)]
pub struct Shell {
    tray: AtomicBool,
    shortcuts: Mutex<HashMap<Hotkey, Shortcut>>,
    errors: Mutex<HashMap<Hotkey, String>>,
    /// The language the tray and the windows were last told.
    language: Mutex<Option<Language>>,
}

/// Baton's global shortcuts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hotkey {
    /// Shows or hides the quick window.
    Quick,
    /// Held: push-to-talk from any application.
    Talk,
}

impl Hotkey {
    /// Its name in messages.
    fn name(self) -> &'static str {
        match self {
            Self::Quick => "the quick window's shortcut",
            Self::Talk => "the push-to-talk shortcut",
        }
    }

    fn other(self) -> Self {
        match self {
            Self::Quick => Self::Talk,
            Self::Talk => Self::Quick,
        }
    }

    fn run(self, app: &AppHandle, state: ShortcutState) {
        match self {
            Self::Quick if state == ShortcutState::Pressed => toggle_quick(app),
            Self::Quick => {}
            Self::Talk => crate::talk::hold(app, state == ShortcutState::Pressed),
        }
    }
}

/// The tray menu's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TrayItem {
    Show,
    NewChat,
    Quick,
    Voice,
    StopVoice,
    Quit,
}

impl TrayItem {
    const ALL: [Self; 6] = [
        Self::Show,
        Self::NewChat,
        Self::Quick,
        Self::Voice,
        Self::StopVoice,
        Self::Quit,
    ];

    fn id(self) -> &'static str {
        match self {
            Self::Show => "show",
            Self::NewChat => "new-chat",
            Self::Quick => "quick",
            Self::Voice => "voice",
            Self::StopVoice => "stop-voice",
            Self::Quit => "quit",
        }
    }

    /// Its words in the catalogs (`shell.json`).
    fn key(self) -> &'static str {
        match self {
            Self::Show => "tray.show",
            Self::NewChat => "tray.newChat",
            Self::Quick => "tray.quick",
            Self::Voice => "tray.voice",
            Self::StopVoice => "tray.stopVoice",
            Self::Quit => "tray.quit",
        }
    }

    fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|i| i.id() == id)
    }
}

/// The plugins the shell works through; single-instance first, so a
/// second launch hands over before anything else starts.
pub fn plugins(builder: tauri::Builder<tauri::Wry>) -> tauri::Builder<tauri::Wry> {
    builder
        .plugin(tauri_plugin_single_instance::init(second_launch))
        .plugin(tauri_plugin_global_shortcut::Builder::new().build())
        .plugin(
            tauri_plugin_autostart::Builder::new()
                .app_name("Baton")
                .arg(TRAY_FLAG)
                .build(),
        )
        .plugin(
            tauri_plugin_window_state::Builder::default()
                .with_state_flags(window_state_flags())
                .with_denylist(&[Pane::QUICK_LABEL, Pane::TALK_LABEL])
                .build(),
        )
}

/// What is kept of the main window between runs: size, place, maximized
/// and full screen, but not whether it was shown (Baton closed from the
/// tray must open shown; `--tray` hides it). The quick window and the
/// overlay are placed where they are needed instead.
fn window_state_flags() -> StateFlags {
    StateFlags::all() & !StateFlags::VISIBLE
}

/// Sets the shell up at start: the tray, the shortcuts, the quick window
/// (made hidden a moment after the main window, so the shortcut shows it
/// at once), the files given on the command line; the main window stays
/// hidden when started with [`TRAY_FLAG`].
pub fn setup(app: &AppHandle, settings: &DesktopSettings) {
    app.manage(Shell::default());
    app.manage(crate::talk::Talk::default());
    match build_tray(app) {
        Ok(()) => app.state::<Shell>().tray.store(true, Ordering::Relaxed),
        Err(e) => tracing::warn!("no tray icon: {e}"),
    }
    follow_shortcuts(app, settings);
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == TRAY_FLAG)
        && let Some(main) = app.get_webview_window(Pane::MAIN_LABEL)
    {
        let _ = main.hide();
    }
    attach_arguments(app, &args, None);
    let handle = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        if let Err(e) = quick_window(&handle) {
            tracing::warn!("the quick window could not be made: {e}");
        }
    });
}

/// Registers the saved shortcuts (at start, and when the settings file
/// changed outside the app); why one could not be is kept for the
/// settings page.
pub fn follow_shortcuts(app: &AppHandle, settings: &DesktopSettings) {
    for (which, text) in [
        (Hotkey::Quick, &settings.quick_shortcut),
        (Hotkey::Talk, &settings.talk_shortcut),
    ] {
        if let Err(e) = use_shortcut(app, which, text) {
            tracing::warn!("{e}");
            lock(&app.state::<Shell>().errors).insert(which, e);
        }
    }
}

/// Puts the tray's menu in the app's language and tells every window it,
/// if it changed.
pub fn follow_language(app: &AppHandle) {
    let language = app.state::<AppState>().engine().settings().app_language();
    if lock(&app.state::<Shell>().language).replace(language) == Some(language) {
        return;
    }
    if let Some(tray) = app.tray_by_id(TRAY_ID) {
        match tray_menu(app, language) {
            Ok(menu) => {
                let _ = tray.set_menu(Some(menu));
            }
            Err(e) => tracing::warn!("the tray menu was not relabelled: {e}"),
        }
    }
    if let Err(e) = (LanguageChanged { language }).emit(app) {
        tracing::debug!("the windows were not told the language: {e}");
    }
}

/// What the settings page shows.
pub fn status(app: &AppHandle) -> DesktopStatus {
    let shell = app.state::<Shell>();
    let errors = lock(&shell.errors);
    DesktopStatus {
        settings: app.state::<AppState>().engine().settings().desktop.clone(),
        shortcut_error: errors.get(&Hotkey::Quick).cloned(),
        talk_shortcut_error: errors.get(&Hotkey::Talk).cloned(),
        tray: shell.tray.load(Ordering::Relaxed),
        system_language: Language::system(),
    }
}

/// Makes `text` (an accelerator such as `CommandOrControl+Shift+Space`;
/// empty: none) shortcut `which` in place of the one now registered.
/// Refused in words when it is not a shortcut, is Baton's other shortcut,
/// or another application holds it; the old one then stays.
pub fn use_shortcut(app: &AppHandle, which: Hotkey, text: &str) -> Result<(), String> {
    let text = text.trim();
    let wanted = match text {
        "" => None,
        _ => Some(parse_shortcut(text)?),
    };
    let shell = app.state::<Shell>();
    let mut shortcuts = lock(&shell.shortcuts);
    if shortcuts.get(&which) == wanted.as_ref() {
        lock(&shell.errors).remove(&which);
        return Ok(());
    }
    if wanted.is_some() && shortcuts.get(&which.other()) == wanted.as_ref() {
        return Err(format!("{text} is already {}", which.other().name()));
    }
    let keys = app.global_shortcut();
    if let Some(new) = wanted {
        keys.on_shortcut(new, move |app, _, event| which.run(app, event.state))
            .map_err(|e| taken(text, &e))?;
    }
    if let Some(old) = shortcuts.remove(&which)
        && let Err(e) = keys.unregister(old)
    {
        tracing::warn!("the old {} stays registered: {e}", which.name());
    }
    if let Some(new) = wanted {
        shortcuts.insert(which, new);
    }
    lock(&shell.errors).remove(&which);
    Ok(())
}

/// `text` as a shortcut, or why not in words.
fn parse_shortcut(text: &str) -> Result<Shortcut, String> {
    text.parse::<Shortcut>().map_err(|e| {
        format!(
            "`{text}` is not a shortcut ({e}); write modifiers and one key, such as \
             CommandOrControl+Shift+Space or Alt+F12"
        )
    })
}

fn taken(text: &str, e: &tauri_plugin_global_shortcut::Error) -> String {
    use tauri_plugin_global_shortcut::Error as E;
    match e {
        E::GlobalHotkey(g) if g.contains("already registered") => {
            format!("{text} is already used by another application; choose another shortcut")
        }
        _ => format!("{text} could not be made a shortcut: {e}"),
    }
}

/// Starts Baton at login, or stops doing so.
pub fn start_at_login(app: &AppHandle, on: bool) -> Result<(), String> {
    let launch = app.autolaunch();
    let now = launch.is_enabled().unwrap_or(false);
    let result = match (on, now) {
        (true, false) => {
            ensure_config_home(app)?;
            launch.enable()
        }
        (false, true) => launch.disable(),
        _ => Ok(()),
    };
    result.map_err(|e| format!("starting Baton at login could not be changed: {e}"))
}

/// The autostart plugin (auto-launch) writes `~/.config/autostart/` and
/// creates only the last folder: on a fresh profile without `~/.config`
/// it fails with "No such file or directory", so make that folder first.
fn ensure_config_home(app: &AppHandle) -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Ok(());
    }
    let home = app
        .path()
        .home_dir()
        .map_err(|e| format!("starting Baton at login needs a home folder: {e}"))?;
    std::fs::create_dir_all(home.join(".config"))
        .map_err(|e| format!("starting Baton at login could not make ~/.config: {e}"))
}

/// The window events the shell takes: closing the main window hides it
/// to the tray (when set and there is a tray), closing the quick window
/// or the overlay hides it, and the main window's size and place are kept
/// as they change.
pub fn on_window_event(window: &tauri::Window, event: &WindowEvent) {
    let app = window.app_handle();
    let pane = Pane::of(window.label());
    match event {
        WindowEvent::Resized(_) | WindowEvent::Moved(_) if pane == Pane::Main => {
            keep_window_state(app)
        }
        WindowEvent::CloseRequested { api, .. } if keeps_running(app, pane) => {
            api.prevent_close();
            let _ = window.hide();
        }
        _ => {}
    }
}

/// Whether closing `pane`'s window keeps Baton running: the quick window
/// and the overlay always hide; the main window hides to the tray when
/// set and there is a tray.
fn keeps_running(app: &AppHandle, pane: Pane) -> bool {
    match pane {
        Pane::Quick | Pane::Talk => true,
        Pane::Main => {
            app.state::<Shell>().tray.load(Ordering::Relaxed)
                && app
                    .state::<AppState>()
                    .engine()
                    .settings()
                    .desktop
                    .close_to_tray
        }
    }
}

/// Keeps the main window's size and place half a second after it last
/// changed (the plugin saves only at a clean exit; a logout or a kill
/// would lose them).
fn keep_window_state(app: &AppHandle) {
    static CHANGES: AtomicU64 = AtomicU64::new(0);
    let change = CHANGES.fetch_add(1, Ordering::SeqCst) + 1;
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        if CHANGES.load(Ordering::SeqCst) != change {
            return;
        }
        if let Err(e) = app.save_window_state(window_state_flags()) {
            tracing::debug!("the window's size and place were not kept: {e}");
        }
    });
}

/// Shows the main window in front.
pub fn show_main(app: &AppHandle) {
    if let Some(main) = app.get_webview_window(Pane::MAIN_LABEL) {
        let _ = main.unminimize();
        let _ = main.show();
        let _ = main.set_focus();
    }
}

/// What a turn needs the user for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attention {
    /// Its answer is ready.
    Answered,
    /// It ended with an error.
    Failed,
    /// An external action waits for a yes or no.
    Confirmation,
    /// A subagent asks a question.
    Question,
}

impl Attention {
    /// The notification's text in the catalogs (`shell.json`).
    fn key(self) -> &'static str {
        match self {
            Self::Answered => "notice.answered",
            Self::Failed => "notice.failed",
            Self::Confirmation => "notice.confirmation",
            Self::Question => "notice.question",
        }
    }
}

/// Tells the user with a native notification that conversation `session`
/// (titled `title`) in `pane`'s window needs them, unless that window is
/// in front (shown and focused) or notifications are off. Clicking it
/// shows the conversation.
pub fn notify_if_away(
    app: &AppHandle,
    pane: Pane,
    session: &SessionId,
    title: &str,
    what: Attention,
) {
    let engine = app.state::<AppState>().engine();
    if !engine.settings().desktop.notifications {
        return;
    }
    let language = engine.settings().app_language();
    if in_front(app, pane) {
        tracing::debug!(?what, "no notification: the window is in front");
        return;
    }
    let (app, session, title) = (app.clone(), session.clone(), title.to_string());
    // Showing blocks on D-Bus and waiting for the click blocks until the
    // notification closes: a thread of its own, off the async runtime.
    std::thread::spawn(move || {
        let shown = notify_rust::Notification::new()
            .appname("Baton")
            .summary(&title)
            .body(&i18n::text(language, what.key()))
            .action("default", &i18n::text(language, "notice.open"))
            .show();
        match shown {
            Ok(handle) => handle.wait_for_action(|action| {
                if action == "default" {
                    open_from_notice(&app, pane, &session);
                }
            }),
            Err(e) => tracing::info!("no notification shown: {e}"),
        }
    });
}

/// Whether `pane`'s window is shown and has the focus.
fn in_front(app: &AppHandle, pane: Pane) -> bool {
    app.get_webview_window(pane.label())
        .is_some_and(|w| w.is_visible().unwrap_or(false) && w.is_focused().unwrap_or(false))
}

/// A notification clicked: its conversation in front.
fn open_from_notice(app: &AppHandle, pane: Pane, session: &SessionId) {
    match pane {
        Pane::Main | Pane::Talk => request_main(
            app,
            WindowRequest::OpenChat {
                session_id: session.to_string(),
            },
        ),
        Pane::Quick => show_quick(app),
    }
}

/// Shows the main window and asks it for `request`.
pub fn request_main(app: &AppHandle, request: WindowRequest) {
    show_main(app);
    if let Err(e) = (MainWindowRequest { request }).emit(app) {
        tracing::warn!("the main window was not asked: {e}");
    }
}

/// Hides the quick window (its turn goes on).
pub fn hide_quick(app: &AppHandle) {
    if let Some(quick) = app.get_webview_window(Pane::QUICK_LABEL) {
        let _ = quick.hide();
    }
}

/// The shortcut: shows the quick window near the pointer, or hides it
/// when it is in front.
fn toggle_quick(app: &AppHandle) {
    if in_front(app, Pane::Quick) {
        hide_quick(app);
    } else {
        show_quick(app);
    }
}

/// Shows the quick window near the pointer, in front, its question box
/// focused.
pub fn show_quick(app: &AppHandle) {
    let quick = match quick_window(app) {
        Ok(w) => w,
        Err(e) => return tracing::warn!("the quick window could not be made: {e}"),
    };
    if let Err(e) = place_near_pointer(app, &quick) {
        tracing::debug!("the quick window stays where it was: {e}");
    }
    let _ = quick.show();
    let _ = quick.set_focus();
    let _ = QuickWindowShown {}.emit(app);
}

/// The quick window, made (hidden) when it does not exist yet.
fn quick_window(app: &AppHandle) -> tauri::Result<WebviewWindow> {
    if let Some(w) = app.get_webview_window(Pane::QUICK_LABEL) {
        return Ok(w);
    }
    pane_window(app, Pane::Quick, "Baton — quick question", (620.0, 460.0))
        .min_inner_size(420.0, 240.0)
        .build()
}

/// A small window of Baton's UI for `pane` (the page reads its kind from
/// `__BATON_PANE__`): undecorated, always on top, not in the taskbar,
/// made hidden.
pub fn pane_window<'a>(
    app: &'a AppHandle,
    pane: Pane,
    title: &str,
    (width, height): (f64, f64),
) -> tauri::WebviewWindowBuilder<'a, tauri::Wry, AppHandle> {
    tauri::WebviewWindowBuilder::new(app, pane.label(), WebviewUrl::App("index.html".into()))
        .title(title)
        .inner_size(width, height)
        .decorations(false)
        .always_on_top(true)
        .skip_taskbar(true)
        .visible(false)
        .initialization_script(format!("window.__BATON_PANE__ = '{}';", pane.label()))
}

fn place_near_pointer(app: &AppHandle, window: &WebviewWindow) -> tauri::Result<()> {
    let pointer = app.cursor_position()?;
    let monitor = match app.monitor_from_point(pointer.x, pointer.y)? {
        Some(m) => m,
        None => match app.primary_monitor()? {
            Some(m) => m,
            None => return Ok(()),
        },
    };
    let size = window.outer_size()?;
    let area = monitor.work_area();
    let (x, y) = near_pointer(
        (pointer.x as i32, pointer.y as i32),
        (size.width as i32, size.height as i32),
        (area.position.x, area.position.y),
        (area.size.width as i32, area.size.height as i32),
    );
    window.set_position(PhysicalPosition::new(x, y))
}

/// Where a window of `size` opens for a pointer at `pointer`: just below
/// and right of it, moved in so the whole window is on the screen area
/// at `origin` of `area` (left and top win when it is larger).
fn near_pointer(
    pointer: (i32, i32),
    size: (i32, i32),
    origin: (i32, i32),
    area: (i32, i32),
) -> (i32, i32) {
    let axis = |p: i32, s: i32, o: i32, a: i32| (p + POINTER_GAP).min(o + a - s).max(o);
    (
        axis(pointer.0, size.0, origin.0, area.0),
        axis(pointer.1, size.1, origin.1, area.1),
    )
}

/// The tray's menu in `language`.
fn tray_menu(app: &AppHandle, language: Language) -> tauri::Result<Menu<tauri::Wry>> {
    let items = TrayItem::ALL
        .into_iter()
        .map(|i| {
            MenuItem::with_id(
                app,
                i.id(),
                i18n::text(language, i.key()),
                true,
                None::<&str>,
            )
        })
        .collect::<tauri::Result<Vec<_>>>()?;
    let separator = PredefinedMenuItem::separator(app)?;
    let (head, quit) = items.split_at(items.len() - 1);
    let mut entries: Vec<&dyn tauri::menu::IsMenuItem<tauri::Wry>> =
        head.iter().map(|i| i as _).collect();
    entries.push(&separator);
    entries.push(&quit[0]);
    Menu::with_items(app, &entries)
}

fn build_tray(app: &AppHandle) -> tauri::Result<()> {
    let language = app.state::<AppState>().engine().settings().app_language();
    *lock(&app.state::<Shell>().language) = Some(language);
    let menu = tray_menu(app, language)?;
    let mut tray = TrayIconBuilder::with_id(TRAY_ID)
        .tooltip("Baton")
        .menu(&menu)
        .show_menu_on_left_click(false)
        .on_menu_event(|app, event| {
            if let Some(item) = TrayItem::from_id(event.id().as_ref()) {
                on_tray_item(app, item);
            }
        })
        .on_tray_icon_event(|tray, event| {
            if let TrayIconEvent::Click {
                button: MouseButton::Left,
                button_state: MouseButtonState::Up,
                ..
            } = event
            {
                show_main(tray.app_handle());
            }
        });
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    tray.build(app)?;
    Ok(())
}

fn on_tray_item(app: &AppHandle, item: TrayItem) {
    match item {
        TrayItem::Show => show_main(app),
        TrayItem::NewChat => request_main(app, WindowRequest::NewChat),
        TrayItem::Quick => show_quick(app),
        TrayItem::Voice => request_main(app, WindowRequest::Voice),
        TrayItem::StopVoice => {
            if let Err(e) = crate::commands::voice::voice_stop(app.state()) {
                tracing::warn!("voice did not stop: {}", e.message);
            }
        }
        TrayItem::Quit => app.exit(0),
    }
}

/// Baton was opened again: this instance comes to the front and attaches
/// the files named on that command line.
fn second_launch(app: &AppHandle, args: Vec<String>, cwd: String) {
    show_main(app);
    attach_arguments(app, &args, Some(Path::new(&cwd)));
}

/// Attaches the files named on a command line (`args[0]` is the program;
/// flags are skipped; relative paths are read from `cwd`).
fn attach_arguments(app: &AppHandle, args: &[String], cwd: Option<&Path>) {
    let paths = file_arguments(args, cwd);
    if !paths.is_empty() {
        crate::commands::attachments::attach_paths_in_background(
            app,
            Pane::Main,
            paths,
            "files given to Baton",
        );
    }
}

/// The files a command line names.
fn file_arguments(args: &[String], cwd: Option<&Path>) -> Vec<PathBuf> {
    args.iter()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(|a| match cwd {
            Some(dir) => dir.join(a),
            None => PathBuf::from(a),
        })
        .filter(|p| p.is_file())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_window_opens_beside_the_pointer_and_stays_on_the_screen() {
        let size = (600, 400);
        let screen = ((0, 0), (1920, 1080));
        assert_eq!(
            near_pointer((100, 100), size, screen.0, screen.1),
            (112, 112)
        );
        // Near the bottom-right corner it moves in.
        assert_eq!(
            near_pointer((1900, 1000), size, screen.0, screen.1),
            (1320, 680)
        );
        // On a second screen to the left (negative origin).
        assert_eq!(
            near_pointer((-1900, 10), size, (-1920, 0), (1920, 1080)),
            (-1888, 22)
        );
        // Larger than the screen: its top-left corner stays on it.
        assert_eq!(
            near_pointer((50, 50), (800, 700), (0, 0), (640, 480)),
            (0, 0)
        );
    }

    #[test]
    fn shortcuts_are_read_or_refused_in_words() {
        assert!(parse_shortcut("CommandOrControl+Shift+Space").is_ok());
        assert!(parse_shortcut("Alt+F12").is_ok());
        let why = parse_shortcut("Shift+Ctrl+Banana").unwrap_err();
        assert!(
            why.contains("`Shift+Ctrl+Banana` is not a shortcut"),
            "{why}"
        );
    }

    #[test]
    fn a_command_line_gives_the_files_it_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.md"), "# notes").unwrap();
        let args: Vec<String> = ["baton-desktop", "--tray", "notes.md", "missing.pdf"]
            .map(String::from)
            .into();
        assert_eq!(
            file_arguments(&args, Some(dir.path())),
            vec![dir.path().join("notes.md")]
        );
        assert!(file_arguments(&args[..2], None).is_empty());
    }

    #[test]
    fn every_tray_item_is_found_by_its_id() {
        for item in TrayItem::ALL {
            assert_eq!(TrayItem::from_id(item.id()), Some(item));
        }
        assert_eq!(TrayItem::from_id("nope"), None);
    }
}
