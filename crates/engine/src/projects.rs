//! The projects service: named groups of chats, each with its own folder
//! (the workspace of its chats, indexed on its own), instructions, default
//! agent and provider, and memory. A chat in a project runs on the
//! project's engine: the same settings and shared parts (browser, mailbox,
//! embedding model) over the project's folder.

use std::sync::Arc;

use baton_agent::{Session, SessionId, SessionInfo};
use baton_config::{NewProject, Project, ProjectId, ProjectStore};
use baton_memory::MemoryStore;

use crate::{ConversationOptions, Engine, EngineError};

/// The projects of an [`Engine`] (see [`Engine::projects`]).
pub struct Projects<'a> {
    pub(crate) e: &'a Arc<Engine>,
}

/// A project removed, and the chats that went to the trash with it.
#[derive(Debug, Clone)]
pub struct RemovedProject {
    /// The project as it was.
    pub project: Project,
    /// Its chats, now in the trash (`restore_session` brings one back).
    pub trashed: Vec<SessionId>,
}

impl Projects<'_> {
    /// The projects file (`projects.json` in the config folder).
    pub fn store(&self) -> ProjectStore {
        ProjectStore::in_dir(&self.e.paths.config_dir)
    }

    /// Every project, by name.
    pub fn list(&self) -> Result<Vec<Project>, EngineError> {
        Ok(self.store().list()?)
    }

    /// The project named `name` (any case) or with that id.
    pub fn find(&self, name: &str) -> Result<Project, EngineError> {
        Ok(self.store().find(name)?)
    }

    /// The project with id `id`.
    pub fn get(&self, id: &ProjectId) -> Result<Project, EngineError> {
        Ok(self.store().get(id)?)
    }

    /// Makes a project and its folder (when missing).
    pub fn create(&self, new: NewProject) -> Result<Project, EngineError> {
        if new.folder.is_absolute() {
            make_folder(&new.folder)?;
        }
        Ok(self.store().create(new)?)
    }

    /// Changes project `id` (its open chats pick the change up on their
    /// next turn); a new folder is made when missing.
    pub fn update(
        &self,
        id: &ProjectId,
        change: impl FnOnce(&mut Project),
    ) -> Result<Project, EngineError> {
        let project = self.store().update(id, change)?;
        make_folder(&project.folder)?;
        Ok(project)
    }

    /// Removes project `id`: its chats go to the trash (not to nowhere)
    /// and its memory with them; its folder and files stay.
    pub fn remove(&self, id: &ProjectId) -> Result<RemovedProject, EngineError> {
        let project = self.get(id)?;
        let store = self.e.conversations().store();
        let mut trashed = Vec::new();
        for chat in self.chats(id) {
            store.trash(&chat.id)?;
            trashed.push(chat.id);
        }
        let own = data_dir(&self.e.paths, id);
        if own.exists() {
            let trash = self.e.paths.data_dir.join("projects").join(".trash");
            let moved = std::fs::create_dir_all(&trash)
                .and_then(|()| std::fs::rename(&own, trash.join(id.as_str())));
            if let Err(e) = moved {
                tracing::warn!(error = %e, project = %id, "the project's memory stays in place");
            }
        }
        self.store().remove(id)?;
        tracing::info!(project = %project.name, chats = trashed.len(), "project removed");
        Ok(RemovedProject { project, trashed })
    }

    /// The saved chats of project `id`, newest first.
    pub fn chats(&self, id: &ProjectId) -> Vec<SessionInfo> {
        let mut all = self.e.conversations().store().summaries();
        all.retain(|s| s.project.as_ref() == Some(id));
        all
    }

    /// Moves saved chat `chat` into project `to` (`None`: out of any
    /// project). Its next turn works in the new project's folder.
    pub fn move_chat(&self, chat: &SessionId, to: Option<&ProjectId>) -> Result<(), EngineError> {
        if let Some(id) = to {
            self.get(id)?;
        }
        let store = self.e.conversations().store();
        let mut session = store.load(chat)?;
        session.project = to.cloned();
        store.save(&session)?;
        Ok(())
    }

    /// What the user asked to remember in project `id`.
    pub fn memory(&self, id: &ProjectId) -> Arc<MemoryStore> {
        Arc::new(MemoryStore::in_dir(&data_dir(&self.e.paths, id)))
    }

    /// The engine chats of project `id` run on: its folder as the
    /// workspace, its memory, the parts of this engine shared. Made once
    /// per version of the project and kept (with its agents).
    pub fn engine(&self, id: &ProjectId) -> Result<Arc<Engine>, EngineError> {
        let project = self.get(id)?;
        let mut kept = self
            .e
            .project_engines
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(e) = kept.iter().find(|e| e.project.as_ref() == Some(&project)) {
            return Ok(Arc::clone(e));
        }
        // An engine made for the project before it changed is let go.
        kept.retain(|e| e.project.as_ref().map(|p| &p.id) != Some(id));
        let engine = Arc::new(self.e.in_project(project));
        kept.push(Arc::clone(&engine));
        Ok(engine)
    }
}

/// Makes a project's folder when it is missing.
fn make_folder(folder: &std::path::Path) -> Result<(), EngineError> {
    std::fs::create_dir_all(folder).map_err(|e| EngineError::Workspace {
        path: folder.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Where project `id` keeps its own data (its memory).
pub(crate) fn data_dir(paths: &baton_config::BatonPaths, id: &ProjectId) -> std::path::PathBuf {
    paths.data_dir.join("projects").join(id.as_str())
}

/// The engine a conversation over `session` runs on: the project's when
/// the session (or, for a new one, `options`) names one. A project that
/// is gone leaves the chat in the user's workspace (said in the log).
pub(crate) fn engine_for(
    engine: &Arc<Engine>,
    session: &mut Session,
    options: &ConversationOptions,
) -> Arc<Engine> {
    if let Some(id) = &options.project {
        session.project = Some(id.clone());
    }
    let Some(id) = session.project.clone() else {
        return Arc::clone(engine);
    };
    if engine.project.as_ref().map(|p| &p.id) == Some(&id) {
        return Arc::clone(engine);
    }
    match engine.projects().engine(&id) {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!(project = %id, error = %e, "the chat's project cannot be opened; using the workspace");
            Arc::clone(engine)
        }
    }
}
