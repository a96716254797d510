//! Why a file could not be converted, in words a user understands.

/// A conversion failure. The message names the problem and, where there is
/// one, what the user can do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    /// The file is empty.
    #[error("the file is empty")]
    Empty,
    /// Over the size limit.
    #[error("the file is {} and the limit is {}; it was not read", human_size(*size), human_size(*limit))]
    TooLarge {
        /// File size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// An archive-based file that would unpack to more than allowed.
    #[error("the file would unpack from {} to {}; that looks like a zip bomb, so it was not read", human_size(*packed), human_size(*unpacked))]
    UnpackLimit {
        /// Declared or observed unpacked size.
        unpacked: u64,
        /// The file's size.
        packed: u64,
    },
    /// A format Baton does not read.
    #[error("{what} cannot be converted to text{}", hint.as_ref().map(|h| format!(" ({h})")).unwrap_or_default())]
    Unsupported {
        /// What the file is.
        what: String,
        /// What the user can do.
        hint: Option<String>,
    },
    /// The file is damaged or not what it claims.
    #[error("the {format} file is damaged or incomplete: {reason}")]
    Corrupt {
        /// The format label.
        format: &'static str,
        /// What the parser said.
        reason: String,
    },
    /// Password protected.
    #[error(
        "the {format} file is password protected; open it, remove the password and attach it again"
    )]
    Encrypted {
        /// The format label.
        format: &'static str,
    },
    /// Readable, but no text in it.
    #[error(
        "no text could be found in the {format} file (it may be damaged, blank or only images)"
    )]
    NoText {
        /// The format label.
        format: &'static str,
    },
    /// Took longer than allowed.
    #[error("converting the file took longer than {secs} s and was stopped")]
    Timeout {
        /// The deadline in seconds.
        secs: u64,
    },
    /// The converter crashed on this file.
    #[error("the converter failed on this file: {0}")]
    Crashed(String),
}

/// `1536` → `1.5 KB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(human_size(12), "12 bytes");
        assert_eq!(human_size(1536), "1.5 KB");
        assert_eq!(human_size(2 * 1024 * 1024 * 1024), "2.0 GB");
    }

    #[test]
    fn messages_say_what_to_do() {
        let e = ConvertError::TooLarge {
            size: 2 << 30,
            limit: 200 << 20,
        };
        assert_eq!(
            e.to_string(),
            "the file is 2.0 GB and the limit is 200.0 MB; it was not read"
        );
        let e = ConvertError::Encrypted { format: "PDF" };
        assert!(e.to_string().contains("password protected"));
    }
}
