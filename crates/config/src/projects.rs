//! Projects: named groups of chats, each with a folder of its own (its
//! workspace, indexed on its own), instructions, and a default agent and
//! provider. Kept in `projects.json` in the config folder, written
//! atomically under a lock beside it (the desktop and the CLI both edit
//! it).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The projects file in the config folder.
pub const PROJECTS_FILE: &str = "projects.json";

/// Characters a project's name may hold.
pub const MAX_NAME_CHARS: usize = 60;

/// Why a project could not be read, made or changed.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// The projects file could not be read or written.
    #[error("the projects file {path} could not be {doing}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// `read` or `written`.
        doing: &'static str,
        /// The system's words.
        reason: String,
    },
    /// The projects file is not Baton's (damaged or foreign); it is left
    /// as it is.
    #[error("the projects file {path} is damaged ({reason}); it was left untouched")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// No project has this name or id.
    #[error("there is no project named '{0}' (`baton projects list` shows them)")]
    NotFound(String),
    /// Another project has this name.
    #[error("a project named '{0}' already exists")]
    NameTaken(String),
    /// The name is empty or too long.
    #[error("a project's name must be 1 to {MAX_NAME_CHARS} characters, not '{0}'")]
    BadName(String),
    /// The folder is not an absolute path.
    #[error("a project's folder must be an absolute path, not '{0}'")]
    BadFolder(PathBuf),
}

/// A project's id: `p` and eight hexadecimal digits (`p3f9a02c1`); it
/// stays when the project is renamed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ProjectId(String);

/// Text that is not a project id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a project id (p and eight hexadecimal digits)")]
pub struct BadProjectId(pub String);

impl ProjectId {
    /// A fresh id.
    pub fn new() -> ProjectId {
        ProjectId(baton_stdx::short_id('p'))
    }

    /// Reads an id.
    pub fn parse(text: &str) -> Result<ProjectId, BadProjectId> {
        let t = text.trim();
        baton_stdx::is_short_id(t, 'p')
            .then(|| ProjectId(t.to_string()))
            .ok_or_else(|| BadProjectId(text.to_string()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for ProjectId {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Display for ProjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for ProjectId {
    type Error = BadProjectId;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        ProjectId::parse(&s)
    }
}

impl From<ProjectId> for String {
    fn from(id: ProjectId) -> String {
        id.0
    }
}

/// One project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Its id (sessions name their project by it).
    #[specta(type = String)]
    pub id: ProjectId,
    /// Its name, as the sidebar and `--project` say it.
    pub name: String,
    /// Its folder: the workspace of its chats, indexed on its own.
    pub folder: PathBuf,
    /// Instructions every chat in it gets (added to the agent's).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub instructions: String,
    /// The named agent its new chats talk to (`None`: the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The provider entry its chats use (`None`: the agent's or the
    /// default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// When it was made, seconds since the Unix epoch.
    #[specta(type = u32)]
    pub created: u64,
}

/// What a new project is made of.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewProject {
    /// Its name (unique, whatever the case).
    pub name: String,
    /// Its folder (absolute; made when missing).
    pub folder: PathBuf,
    /// Instructions for its chats.
    #[serde(default)]
    pub instructions: String,
    /// The default agent of its chats.
    #[serde(default)]
    pub agent: Option<String>,
    /// The provider entry of its chats.
    #[serde(default)]
    pub provider: Option<String>,
}

/// The file's shape.
#[derive(Debug, Default, Serialize, Deserialize)]
struct ProjectsFile {
    version: u32,
    projects: Vec<Project>,
}

baton_stdx::from_json_file_error!(ProjectError);

/// The projects of one config folder.
#[derive(Debug, Clone)]
pub struct ProjectStore {
    file: baton_stdx::JsonFile,
}

impl ProjectStore {
    /// The projects kept in `config_dir` ([`PROJECTS_FILE`]; made with
    /// the first project).
    pub fn in_dir(config_dir: &Path) -> ProjectStore {
        ProjectStore {
            file: baton_stdx::JsonFile::new(config_dir.join(PROJECTS_FILE)),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Every project, by name.
    pub fn list(&self) -> Result<Vec<Project>, ProjectError> {
        let mut all = self.read()?;
        all.sort_by_key(|p| p.name.to_lowercase());
        Ok(all)
    }

    /// The project named `name` (any case) or with the id `name`.
    pub fn find(&self, name: &str) -> Result<Project, ProjectError> {
        find_in(&self.read()?, name)
            .cloned()
            .ok_or_else(|| ProjectError::NotFound(name.trim().to_string()))
    }

    /// The project with id `id`.
    pub fn get(&self, id: &ProjectId) -> Result<Project, ProjectError> {
        self.read()?
            .into_iter()
            .find(|p| &p.id == id)
            .ok_or_else(|| ProjectError::NotFound(id.to_string()))
    }

    /// Makes a project (the folder is not touched here).
    pub fn create(&self, new: NewProject) -> Result<Project, ProjectError> {
        let name = checked_name(&new.name)?;
        if !new.folder.is_absolute() {
            return Err(ProjectError::BadFolder(new.folder));
        }
        self.edit(|list| {
            if find_in(list, &name).is_some() {
                return Err(ProjectError::NameTaken(name.clone()));
            }
            let project = Project {
                id: ProjectId::new(),
                name,
                folder: new.folder,
                instructions: new.instructions.trim().to_string(),
                agent: new.agent.filter(|a| !a.trim().is_empty()),
                provider: new.provider.filter(|p| !p.trim().is_empty()),
                created: SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
            };
            list.push(project.clone());
            Ok(project)
        })
    }

    /// Changes project `id` with `change` (its name is checked again).
    pub fn update(
        &self,
        id: &ProjectId,
        change: impl FnOnce(&mut Project),
    ) -> Result<Project, ProjectError> {
        self.edit(|list| {
            let at = list
                .iter()
                .position(|p| &p.id == id)
                .ok_or_else(|| ProjectError::NotFound(id.to_string()))?;
            let mut changed = list[at].clone();
            change(&mut changed);
            changed.id = id.clone();
            changed.name = checked_name(&changed.name)?;
            if !changed.folder.is_absolute() {
                return Err(ProjectError::BadFolder(changed.folder));
            }
            let clash = list
                .iter()
                .enumerate()
                .any(|(i, p)| i != at && p.name.to_lowercase() == changed.name.to_lowercase());
            if clash {
                return Err(ProjectError::NameTaken(changed.name));
            }
            list[at] = changed.clone();
            Ok(changed)
        })
    }

    /// Forgets project `id` (its folder and chats are the caller's to
    /// deal with); the project as it was.
    pub fn remove(&self, id: &ProjectId) -> Result<Project, ProjectError> {
        self.edit(|list| {
            let at = list
                .iter()
                .position(|p| &p.id == id)
                .ok_or_else(|| ProjectError::NotFound(id.to_string()))?;
            Ok(list.remove(at))
        })
    }

    /// Reads, changes and writes the list under the lock beside the file.
    fn edit<T>(
        &self,
        change: impl FnOnce(&mut Vec<Project>) -> Result<T, ProjectError>,
    ) -> Result<T, ProjectError> {
        self.file.edit(|f: &mut ProjectsFile| {
            f.version = 1;
            change(&mut f.projects)
        })
    }

    /// The projects in the file (none when there is no file yet).
    fn read(&self) -> Result<Vec<Project>, ProjectError> {
        Ok(self.file.read::<ProjectsFile>()?.projects)
    }
}

/// The project named `name` (any case) or with that id.
fn find_in<'a>(list: &'a [Project], name: &str) -> Option<&'a Project> {
    let wanted = name.trim().to_lowercase();
    list.iter()
        .find(|p| p.name.to_lowercase() == wanted || p.id.as_str() == wanted)
}

/// The name trimmed, or why it cannot be one.
fn checked_name(name: &str) -> Result<String, ProjectError> {
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let n = name.chars().count();
    if n == 0 || n > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(ProjectError::BadName(name));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(name: &str, folder: &Path) -> NewProject {
        NewProject {
            name: name.into(),
            folder: folder.to_path_buf(),
            instructions: "  Answer in French. ".into(),
            ..NewProject::default()
        }
    }

    #[test]
    fn projects_are_made_found_by_name_or_id_renamed_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let store = ProjectStore::in_dir(dir.path());
        assert!(store.list().unwrap().is_empty(), "no file: no projects");
        let port = store
            .create(new("Port  of Gdynia", &dir.path().join("port")))
            .unwrap();
        assert_eq!(port.name, "Port of Gdynia", "spacing made plain");
        assert_eq!(port.instructions, "Answer in French.");
        let home = store.create(new("home", &dir.path().join("home"))).unwrap();
        assert_eq!(store.find("PORT OF GDYNIA").unwrap().id, port.id);
        assert_eq!(store.find(port.id.as_str()).unwrap().name, "Port of Gdynia");
        let names: Vec<_> = store.list().unwrap().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["home", "Port of Gdynia"], "listed by name");

        let renamed = store.update(&home.id, |p| p.name = "Home".into()).unwrap();
        assert_eq!(
            (renamed.id, renamed.name.as_str()),
            (home.id.clone(), "Home")
        );
        assert!(matches!(
            store.update(&home.id, |p| p.name = "port of gdynia".into()),
            Err(ProjectError::NameTaken(_))
        ));
        assert_eq!(store.remove(&port.id).unwrap().name, "Port of Gdynia");
        assert!(matches!(
            store.find("Port of Gdynia"),
            Err(ProjectError::NotFound(_))
        ));
        assert_eq!(store.list().unwrap().len(), 1);
    }

    #[test]
    fn bad_names_folders_and_files_are_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let store = ProjectStore::in_dir(dir.path());
        store.create(new("a", &dir.path().join("a"))).unwrap();
        assert!(matches!(
            store.create(new("A", &dir.path().join("b"))),
            Err(ProjectError::NameTaken(_))
        ));
        assert!(matches!(
            store.create(new("  ", &dir.path().join("b"))),
            Err(ProjectError::BadName(_))
        ));
        assert!(matches!(
            store.create(new(&"x".repeat(61), &dir.path().join("b"))),
            Err(ProjectError::BadName(_))
        ));
        assert!(matches!(
            store.create(new("b", Path::new("relative/b"))),
            Err(ProjectError::BadFolder(_))
        ));
        assert_eq!(store.list().unwrap().len(), 1);

        std::fs::write(store.path(), b"{ not json").unwrap();
        let err = store.create(new("c", &dir.path().join("c"))).unwrap_err();
        assert!(matches!(err, ProjectError::Damaged { .. }), "{err}");
        assert_eq!(
            std::fs::read(store.path()).unwrap(),
            b"{ not json",
            "left untouched"
        );
    }

    #[test]
    fn ids_are_p_and_eight_hex_digits() {
        let id = ProjectId::new();
        assert_eq!(ProjectId::parse(id.as_str()), Ok(id));
        for bad in [
            "",
            "p123",
            "m12345678",
            "pABCDEF12",
            "p1234567g",
            "../p1234",
        ] {
            assert!(ProjectId::parse(bad).is_err(), "{bad}");
        }
    }
}
