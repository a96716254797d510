//! The per-call dynamic context: the date, time and time zone, and a
//! short summary of the workspace's top folder. Made fresh for every
//! model call and never stored, so the stored history (and with it the
//! provider's cached prompt prefix) does not change as the clock moves.

use std::path::PathBuf;
use std::sync::Arc;

use baton_agent::DynamicContext;
use chrono::{DateTime, FixedOffset, Local};

/// Names listed in the workspace summary at most.
const LISTED: usize = 8;

/// Where the time comes from (the system clock; tests set their own).
pub type Clock = Arc<dyn Fn() -> DateTime<FixedOffset> + Send + Sync>;

/// The date, time and zone, and the workspace's top folder.
pub struct NowContext {
    /// The workspace summarised (`None`: the time only, for an agent
    /// without tools).
    workspace: Option<PathBuf>,
    clock: Clock,
    zone: String,
}

impl NowContext {
    /// The context for `workspace` on the system clock and time zone.
    pub fn new(workspace: PathBuf) -> Self {
        Self::with_clock(workspace, Arc::new(|| Local::now().fixed_offset()))
    }

    /// The same on `clock` (tests move it).
    pub fn with_clock(workspace: PathBuf, clock: Clock) -> Self {
        let zone = iana_time_zone::get_timezone().unwrap_or_default();
        Self {
            workspace: Some(workspace),
            clock,
            zone,
        }
    }

    /// The same without the workspace: the date and time only.
    pub fn time_only(mut self) -> Self {
        self.workspace = None;
        self
    }

    fn time_line(&self) -> String {
        let now = (self.clock)();
        let zone = if self.zone.is_empty() {
            format!("UTC{}", now.format("%:z"))
        } else {
            format!("{}, UTC{}", self.zone, now.format("%:z"))
        };
        format!(
            "Now: {} (time zone {zone}).",
            now.format("%A, %-d %B %Y, %H:%M")
        )
    }

    /// "Workspace `/`: 2 folders (a/, b/) and 3 files (…) at the top."
    fn workspace_line(&self, workspace: &std::path::Path) -> String {
        let Ok(entries) = std::fs::read_dir(workspace) else {
            return "Workspace `/`: not readable right now.".into();
        };
        let (mut folders, mut files) = (Vec::new(), Vec::new());
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                folders.push(format!("{name}/"));
            } else {
                files.push(name);
            }
        }
        if folders.is_empty() && files.is_empty() {
            return "Workspace `/`: empty.".into();
        }
        format!(
            "Workspace `/`: {} and {} at the top.",
            listing(&mut folders, "folder"),
            listing(&mut files, "file")
        )
    }
}

/// "3 files (a, b, c)", at most [`LISTED`] names, sorted.
fn listing(names: &mut [String], what: &str) -> String {
    names.sort_by_key(|n| n.to_lowercase());
    let n = names.len();
    let plural = if n == 1 { "" } else { "s" };
    if n == 0 {
        return format!("no {what}s");
    }
    let shown = names[..n.min(LISTED)].join(", ");
    let more = if n > LISTED { ", …" } else { "" };
    format!("{n} {what}{plural} ({shown}{more})")
}

impl DynamicContext for NowContext {
    fn render(&self, _question: &str) -> Option<String> {
        Some(match &self.workspace {
            Some(w) => format!("{}\n{}", self.time_line(), self.workspace_line(w)),
            None => self.time_line(),
        })
    }
}

/// What every model call gets besides the history, outside the cached
/// prefix: the time (and, for agents with tools, the workspace's top) and
/// what the user asked Baton to remember that bears on the question.
pub(crate) struct PerCall {
    now: Option<Arc<NowContext>>,
    /// The user's memory, and the project's in a project.
    memory: Vec<baton_memory::MemoryContext>,
}

impl PerCall {
    /// The parts given; `None` when there are none.
    pub(crate) fn of(
        now: Option<Arc<NowContext>>,
        memory: Vec<baton_memory::MemoryContext>,
    ) -> Option<Arc<dyn DynamicContext>> {
        (now.is_some() || !memory.is_empty())
            .then(|| Arc::new(PerCall { now, memory }) as Arc<dyn DynamicContext>)
    }
}

impl DynamicContext for PerCall {
    fn render(&self, question: &str) -> Option<String> {
        let parts: Vec<String> =
            std::iter::once(self.now.as_ref().and_then(|n| n.render(question)))
                .chain(self.memory.iter().map(|m| m.render(question)))
                .flatten()
                .collect();
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn says_the_time_and_the_top_of_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("Invoices")).unwrap();
        std::fs::write(dir.path().join("budget.xlsx"), b"x").unwrap();
        std::fs::write(dir.path().join(".hidden"), b"x").unwrap();
        let at = FixedOffset::east_opt(3600)
            .unwrap()
            .with_ymd_and_hms(2026, 12, 1, 9, 5, 0)
            .unwrap();
        let ctx = NowContext::with_clock(dir.path().into(), Arc::new(move || at));
        let text = ctx.render("").unwrap();
        assert!(
            text.starts_with("Now: Tuesday, 1 December 2026, 09:05 (time zone "),
            "{text}"
        );
        assert!(text.contains("UTC+01:00)."), "{text}");
        assert!(
            text.ends_with(
                "Workspace `/`: 1 folder (Invoices/) and 1 file (budget.xlsx) at the top."
            ),
            "{text}"
        );
    }

    #[test]
    fn long_folders_are_cut_and_empty_ones_said() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = NowContext::new(dir.path().into());
        assert!(ctx.render("").unwrap().ends_with("Workspace `/`: empty."));
        for i in 0..10 {
            std::fs::write(dir.path().join(format!("f{i}.txt")), b"x").unwrap();
        }
        let text = ctx.render("").unwrap();
        assert!(text.ends_with("no folders and 10 files (f0.txt, f1.txt, f2.txt, f3.txt, f4.txt, f5.txt, f6.txt, f7.txt, …) at the top."), "{text}");
    }
}
