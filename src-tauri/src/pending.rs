//! Files waiting in the composer, with their conversion state. Bytes are
//! read here in Rust (drop, file dialog or paste) and converted by the
//! engine; the UI only ever sees names and states.

use std::sync::Mutex;

use baton_engine::api::FileAttachment;

use crate::dto::{AttachmentState, AttachmentView, Pane};
use crate::error::IpcResult;
use crate::state::lock;

struct Pending {
    id: String,
    pane: Pane,
    file: FileAttachment,
    state: AttachmentState,
}

/// The pending attachments of every window's composer, in the order they
/// were added.
#[derive(Default)]
pub struct Attachments {
    items: Mutex<Vec<Pending>>,
}

impl Attachments {
    /// Adds files to `pane`'s composer in the `converting` state; returns
    /// their ids.
    pub fn add(&self, pane: Pane, files: Vec<FileAttachment>) -> Vec<(String, FileAttachment)> {
        let mut items = lock(&self.items);
        files
            .into_iter()
            .map(|file| {
                let id = uuid::Uuid::new_v4().simple().to_string()[..12].to_string();
                items.push(Pending {
                    id: id.clone(),
                    pane,
                    file: file.clone(),
                    state: AttachmentState::Converting,
                });
                (id, file)
            })
            .collect()
    }

    /// Records a conversion result (ignored if the file was removed meanwhile).
    pub fn set_state(&self, id: &str, state: AttachmentState) {
        if let Some(p) = lock(&self.items).iter_mut().find(|p| p.id == id) {
            p.state = state;
        }
    }

    /// Removes one of `pane`'s; whether it was there.
    pub fn remove(&self, pane: Pane, id: &str) -> bool {
        let mut items = lock(&self.items);
        let before = items.len();
        items.retain(|p| p.pane != pane || p.id != id);
        items.len() != before
    }

    /// What `pane`'s composer shows.
    pub fn views(&self, pane: Pane) -> Vec<AttachmentView> {
        lock(&self.items)
            .iter()
            .filter(|p| p.pane == pane)
            .map(|p| AttachmentView {
                id: p.id.clone(),
                name: p.file.name.clone(),
                size: p.file.bytes.len() as f64,
                state: p.state.clone(),
            })
            .collect()
    }

    /// Takes the files with these ids out of `pane`'s composer (to send
    /// them). An unknown id fails the whole call and takes nothing.
    pub fn take(&self, pane: Pane, ids: &[String]) -> IpcResult<Vec<FileAttachment>> {
        let mut items = lock(&self.items);
        let known = |id: &String| items.iter().any(|p| p.pane == pane && &p.id == id);
        if let Some(missing) = ids.iter().find(|id| !known(id)) {
            return Err(crate::dto::IpcError::invalid(format!(
                "attachment {missing} is no longer attached; attach the file again"
            )));
        }
        let mut taken = Vec::new();
        items.retain(|p| {
            if p.pane == pane && ids.contains(&p.id) {
                taken.push(p.file.clone());
                false
            } else {
                true
            }
        });
        Ok(taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_move_from_converting_to_a_state_and_are_taken_once() {
        let a = Attachments::default();
        let ids: Vec<String> = a
            .add(
                Pane::Main,
                vec![
                    FileAttachment::new("a.md", b"# A".to_vec()),
                    FileAttachment::new("b.pdf", b"%PDF-broken".to_vec()),
                ],
            )
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert!(matches!(
            a.views(Pane::Main)[0].state,
            AttachmentState::Converting
        ));
        assert!(a.views(Pane::Quick).is_empty(), "each window has its own");
        assert!(
            a.take(Pane::Quick, &ids[..1]).is_err(),
            "another window's file is not taken"
        );
        a.set_state(
            &ids[1],
            AttachmentState::Skipped {
                reason: "the PDF is damaged".into(),
            },
        );
        assert!(matches!(
            a.views(Pane::Main)[1].state,
            AttachmentState::Skipped { .. }
        ));
        assert!(a.take(Pane::Main, &["nope".into()]).is_err());
        assert_eq!(
            a.views(Pane::Main).len(),
            2,
            "a failed take keeps everything"
        );
        let taken = a.take(Pane::Main, &ids[..1]).unwrap();
        assert_eq!(taken[0].name, "a.md");
        assert_eq!(a.views(Pane::Main).len(), 1);
        assert!(!a.remove(Pane::Quick, &ids[1]));
        assert!(a.remove(Pane::Main, &ids[1]));
        assert!(!a.remove(Pane::Main, &ids[1]));
        assert!(a.views(Pane::Main).is_empty());
    }
}
