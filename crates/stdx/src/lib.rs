//! Small utilities every Baton crate may use, kept in one place instead
//! of inside a domain crate: atomic file writes, numbered backups and
//! their restore, an exclusive lock beside a file for read-modify-write
//! edits (and [`JsonFile`], a JSON file edited that way), short ids, text
//! excerpts, masked secrets, URLs without their passwords, error chains
//! and the host names a network door answers to.
//!
//! Files are written atomically ([`atomic_write`]) and backed up as
//! numbered copies beside them ([`backup_file`], [`restore_backup`]).

mod atomic;
mod backups;
mod hosts;
mod ids;
mod json_file;
mod lock;
mod text;

pub use atomic::{atomic_write, atomic_write_private};
pub use backups::{
    Backup, RestoreError, Restored, backup_file, list_backups, replace_with_backup, restore_backup,
};
pub use hosts::{HostNames, host_name, host_of, is_this_computer};
pub use ids::{is_short_id, short_id};
pub use json_file::{JsonFile, JsonFileError};
pub use lock::{FileLock, lock_beside};
pub use text::{error_chain, escape_attribute, excerpt, fence_body, mask, without_userinfo};
