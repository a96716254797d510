//! Files waiting in the composer, with their conversion state. Bytes are
//! read here in Rust (drop, file dialog or paste) and converted by the
//! engine; the UI only ever sees names and states.

use std::sync::Mutex;

use baton_engine::api::FileAttachment;

use crate::dto::{AttachmentState, AttachmentView};
use crate::error::IpcResult;
use crate::state::lock;

struct Pending {
    id: String,
    file: FileAttachment,
    state: AttachmentState,
}

/// The pending attachments, in the order they were added.
#[derive(Default)]
pub struct Attachments {
    items: Mutex<Vec<Pending>>,
}

impl Attachments {
    /// Adds files in the `converting` state; returns their ids.
    pub fn add(&self, files: Vec<FileAttachment>) -> Vec<(String, FileAttachment)> {
        let mut items = lock(&self.items);
        files
            .into_iter()
            .map(|file| {
                let id = uuid::Uuid::new_v4().simple().to_string()[..12].to_string();
                items.push(Pending {
                    id: id.clone(),
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

    /// Removes one; whether it was there.
    pub fn remove(&self, id: &str) -> bool {
        let mut items = lock(&self.items);
        let before = items.len();
        items.retain(|p| p.id != id);
        items.len() != before
    }

    /// What the UI shows.
    pub fn views(&self) -> Vec<AttachmentView> {
        lock(&self.items)
            .iter()
            .map(|p| AttachmentView {
                id: p.id.clone(),
                name: p.file.name.clone(),
                size: p.file.bytes.len() as f64,
                state: p.state.clone(),
            })
            .collect()
    }

    /// Takes the files with these ids out of the composer (to send them).
    /// An unknown id fails the whole call and takes nothing.
    pub fn take(&self, ids: &[String]) -> IpcResult<Vec<FileAttachment>> {
        let mut items = lock(&self.items);
        if let Some(missing) = ids.iter().find(|id| !items.iter().any(|p| &p.id == *id)) {
            return Err(crate::dto::IpcError::invalid(format!(
                "attachment {missing} is no longer attached; attach the file again"
            )));
        }
        let mut taken = Vec::new();
        items.retain(|p| {
            if ids.contains(&p.id) {
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
            .add(vec![
                FileAttachment::new("a.md", b"# A".to_vec()),
                FileAttachment::new("b.pdf", b"%PDF-broken".to_vec()),
            ])
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert!(matches!(a.views()[0].state, AttachmentState::Converting));
        a.set_state(
            &ids[1],
            AttachmentState::Skipped {
                reason: "the PDF is damaged".into(),
            },
        );
        assert!(matches!(
            a.views()[1].state,
            AttachmentState::Skipped { .. }
        ));
        assert!(a.take(&["nope".into()]).is_err());
        assert_eq!(a.views().len(), 2, "a failed take keeps everything");
        let taken = a.take(&ids[..1]).unwrap();
        assert_eq!(taken[0].name, "a.md");
        assert_eq!(a.views().len(), 1);
        assert!(a.remove(&ids[1]));
        assert!(!a.remove(&ids[1]));
        assert!(a.views().is_empty());
    }
}
