//! The formats Baton reads.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// A document format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Portable Document Format.
    Pdf,
    /// Word (Office Open XML).
    Docx,
    /// OpenDocument text.
    Odt,
    /// Excel (Office Open XML).
    Xlsx,
    /// Excel 97–2003 binary workbook.
    Xls,
    /// OpenDocument spreadsheet.
    Ods,
    /// PowerPoint (Office Open XML).
    Pptx,
    /// A web page.
    Html,
    /// An e-book.
    Epub,
    /// Rich Text Format.
    Rtf,
    /// An e-mail message.
    Eml,
    /// Comma- (or semicolon-, pipe-) separated values.
    Csv,
    /// Tab-separated values.
    Tsv,
    /// Markdown.
    Markdown,
    /// JSON.
    Json,
    /// XML.
    Xml,
    /// YAML.
    Yaml,
    /// Source code (the language is taken from the extension).
    Code,
    /// Plain text.
    Text,
    /// An image (text recovered by OCR).
    Image,
}

impl Format {
    /// A short label for messages: `PDF`, `Word document`, …
    pub fn label(self) -> &'static str {
        match self {
            Format::Pdf => "PDF",
            Format::Docx => "Word document",
            Format::Odt => "OpenDocument text",
            Format::Xlsx => "Excel workbook",
            Format::Xls => "Excel 97-2003 workbook",
            Format::Ods => "OpenDocument spreadsheet",
            Format::Pptx => "PowerPoint presentation",
            Format::Html => "web page",
            Format::Epub => "EPUB e-book",
            Format::Rtf => "RTF document",
            Format::Eml => "e-mail",
            Format::Csv => "CSV table",
            Format::Tsv => "TSV table",
            Format::Markdown => "Markdown",
            Format::Json => "JSON",
            Format::Xml => "XML",
            Format::Yaml => "YAML",
            Format::Code => "source code",
            Format::Text => "text",
            Format::Image => "image",
        }
    }

    /// Formats whose bytes are text (an extension may legitimately relabel
    /// one as another).
    pub fn is_text_like(self) -> bool {
        matches!(
            self,
            Format::Html
                | Format::Csv
                | Format::Tsv
                | Format::Markdown
                | Format::Json
                | Format::Xml
                | Format::Yaml
                | Format::Code
                | Format::Text
                | Format::Eml
        )
    }

    /// The format a file name's extension suggests.
    pub fn from_extension(name: &str) -> Option<Format> {
        let ext = extension(name)?;
        Some(match ext.as_str() {
            "pdf" => Format::Pdf,
            "docx" | "docm" | "dotx" => Format::Docx,
            "odt" => Format::Odt,
            "xlsx" | "xlsm" | "xlsb" => Format::Xlsx,
            "xls" => Format::Xls,
            "ods" => Format::Ods,
            "pptx" | "pptm" => Format::Pptx,
            "html" | "htm" | "xhtml" => Format::Html,
            "epub" => Format::Epub,
            "rtf" => Format::Rtf,
            "eml" => Format::Eml,
            "csv" => Format::Csv,
            "tsv" | "tab" => Format::Tsv,
            "md" | "markdown" => Format::Markdown,
            "json" | "jsonl" | "ndjson" => Format::Json,
            "xml" | "svg" | "plist" => Format::Xml,
            "yaml" | "yml" => Format::Yaml,
            "txt" | "text" | "log" => Format::Text,
            "png" | "jpg" | "jpeg" | "tif" | "tiff" | "webp" | "gif" | "bmp" => Format::Image,
            _ if code_language(&ext).is_some() => Format::Code,
            _ => return None,
        })
    }
}

/// The lower-cased extension of a file name.
pub(crate) fn extension(name: &str) -> Option<String> {
    Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
}

/// The fence language for a source-code extension.
pub(crate) fn code_language(ext: &str) -> Option<&'static str> {
    Some(match ext {
        "rs" => "rust",
        "py" | "pyw" => "python",
        "js" | "mjs" | "cjs" => "javascript",
        "ts" | "mts" => "typescript",
        "tsx" => "tsx",
        "jsx" => "jsx",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        "cs" => "csharp",
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "go" => "go",
        "rb" => "ruby",
        "php" => "php",
        "swift" => "swift",
        "scala" => "scala",
        "sh" | "bash" | "zsh" => "bash",
        "ps1" => "powershell",
        "sql" => "sql",
        "lua" => "lua",
        "r" => "r",
        "pl" => "perl",
        "css" => "css",
        "scss" => "scss",
        "toml" => "toml",
        "ini" | "cfg" | "conf" => "ini",
        "vb" => "vbnet",
        "fs" => "fsharp",
        "dart" => "dart",
        "zig" => "zig",
        "hs" => "haskell",
        "ex" | "exs" => "elixir",
        "erl" => "erlang",
        "clj" => "clojure",
        "vue" => "vue",
        "svelte" => "svelte",
        "dockerfile" => "dockerfile",
        "makefile" | "mk" => "makefile",
        "cmake" => "cmake",
        "proto" => "protobuf",
        "graphql" | "gql" => "graphql",
        "tex" => "latex",
        _ => return None,
    })
}
