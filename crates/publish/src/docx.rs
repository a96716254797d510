//! Markdown as a Word document (docx-rs): headings, paragraphs with bold,
//! italic, strikethrough, code and links, nested bulleted and numbered
//! lists, tables with a header row, pictures, Mermaid diagrams as
//! pictures, page breaks and a title page. docx-rs writes the package; the
//! walk over pulldown-cmark's events that decides what goes where is
//! ours (no crate maps Markdown to DOCX).

use docx_rs::{
    AbstractNumbering, AlignmentType, BreakType, Docx, Hyperlink, HyperlinkType, IndentLevel,
    Level, LevelJc, LevelOverride, LevelText, LineSpacing, NumberFormat, Numbering, NumberingId,
    PageMargin, Paragraph, Pic, Run, RunFonts, Shading, SpecialIndentType, Start, Style, StyleType,
    Table, TableCell, TableRow, WidthType,
};
use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use crate::PublishError;
use crate::markdown::{fence_language, is_page_break, options};
use crate::printer::Picture;

/// EMUs per CSS pixel.
const EMU_PER_PX: u32 = 9525;
/// The text width of an A4 page with the margins below, in EMUs (16 cm).
const TEXT_WIDTH_EMU: u32 = 5_760_000;
/// Abstract numberings (1 is docx-rs's own default).
const BULLETS: usize = 2;
const DECIMAL: usize = 3;
/// A monospace font for code.
const MONO: &str = "Consolas";

/// What the document draws on besides its Markdown.
pub(crate) struct Assets<'a> {
    /// The ```mermaid blocks drawn, in order (or why one was not).
    pub diagrams: Vec<Result<Picture, String>>,
    /// Reads a picture the Markdown names (a workspace path).
    pub image: &'a dyn Fn(&str) -> Result<Vec<u8>, String>,
}

/// The Mermaid sources of `markdown`, in order.
pub(crate) fn mermaid_sources(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for event in Parser::new_ext(markdown, options()) {
        match event {
            Event::Start(Tag::CodeBlock(ref k)) if fence_language(k) == Some("mermaid") => {
                current = Some(String::new());
            }
            Event::Text(t) if current.is_some() => current.get_or_insert_default().push_str(&t),
            Event::End(TagEnd::CodeBlock) if current.is_some() => out.extend(current.take()),
            _ => {}
        }
    }
    out
}

/// `markdown` as a DOCX file; `title_page` is `(title, date)`.
pub(crate) fn write(
    markdown: &str,
    title_page: Option<(&str, &str)>,
    assets: Assets<'_>,
) -> Result<Vec<u8>, PublishError> {
    let mut w = Writer::new(assets);
    if let Some((title, date)) = title_page {
        w.title_page(title, date);
    }
    for event in Parser::new_ext(markdown, options()) {
        w.event(event);
    }
    w.flush();
    let mut out = std::io::Cursor::new(Vec::new());
    let mut xml = w.docx.build();
    xml.styles = with_default_paragraph_style(&xml.styles);
    xml.pack(&mut out)
        .map_err(|e| PublishError::Io(format!("the Word file could not be written: {e}")))?;
    Ok(out.into_inner())
}

/// A4's width, in twentieths of a point.
const PAGE_WIDTH: u32 = 11906;
/// The left and right margins.
const SIDE_MARGIN: i32 = 1077;
/// The page's text width: what a table's grid columns share.
const TEXT_WIDTH: usize = (PAGE_WIDTH as usize) - 2 * (SIDE_MARGIN as usize);

/// `styles` (styles.xml) with `Normal` marked as the default paragraph
/// style, as Word writes it: docx-rs writes the style without
/// `w:default="1"`, and readers (python-docx, strict validators) then
/// find no style for plain paragraphs.
fn with_default_paragraph_style(styles: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(styles);
    text.replacen(
        r#"<w:style w:type="paragraph" w:styleId="Normal">"#,
        r#"<w:style w:type="paragraph" w:default="1" w:styleId="Normal">"#,
        1,
    )
    .into_bytes()
}

/// An open list: the numbering its items use.
struct List {
    num_id: usize,
}

/// A table being built.
#[derive(Default)]
struct TableBuild {
    rows: Vec<TableRow>,
    cells: Vec<TableCell>,
    head: bool,
    cell: Vec<Paragraph>,
    /// The most cells in a row (the grid's columns).
    columns: usize,
}

/// Inline formatting in force.
#[derive(Default, Clone)]
struct Inline {
    bold: u32,
    italic: u32,
    strike: u32,
    link: Option<String>,
}

struct Writer<'a> {
    docx: Docx,
    assets: Assets<'a>,
    para: Option<Paragraph>,
    inline: Inline,
    heading: Option<usize>,
    quote: usize,
    lists: Vec<List>,
    /// The item's first paragraph carries its number; later ones indent.
    item_numbered: bool,
    next_num: usize,
    code: Option<(bool, String)>,
    diagram: usize,
    image: Option<(String, String)>,
    table: Option<TableBuild>,
}

impl<'a> Writer<'a> {
    fn new(assets: Assets<'a>) -> Self {
        Self {
            docx: base_document(),
            assets,
            para: None,
            inline: Inline::default(),
            heading: None,
            quote: 0,
            lists: Vec::new(),
            item_numbered: true,
            next_num: 4,
            code: None,
            diagram: 0,
            image: None,
            table: None,
        }
    }

    fn title_page(&mut self, title: &str, date: &str) {
        self.push(
            Paragraph::new()
                .style("Title")
                .add_run(Run::new().add_text(title)),
        );
        self.push(
            Paragraph::new()
                .style("Subtitle")
                .add_run(Run::new().add_text(date)),
        );
        self.page_break();
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                let run = Run::new()
                    .add_text(t.as_ref())
                    .fonts(mono())
                    .shading(Shading::new().fill("F2F2F2"));
                self.run(run);
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.run(Run::new().add_break(BreakType::TextWrapping)),
            Event::Rule => {
                self.flush();
                let rule = Paragraph::new().align(AlignmentType::Center);
                self.push(rule.add_run(Run::new().add_text("* * *").color("888888")));
            }
            Event::TaskListMarker(done) => self.text(if done { "☑ " } else { "☐ " }),
            Event::Html(t) | Event::InlineHtml(t) if is_page_break(&t) => self.page_break(),
            Event::Html(t) | Event::InlineHtml(t) => self.text(&t),
            Event::InlineMath(t) | Event::DisplayMath(t) | Event::FootnoteReference(t) => {
                self.text(&t)
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.open(),
            Tag::Heading { level, .. } => {
                self.flush();
                self.heading = Some(level as usize);
                self.open();
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.quote += 1;
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                self.code = Some((fence_language(&kind) == Some("mermaid"), String::new()));
            }
            Tag::List(start) => self.start_list(start),
            Tag::Item => {
                self.flush();
                self.item_numbered = false;
                self.open();
            }
            Tag::Table(_) => {
                self.flush();
                self.table = Some(TableBuild::default());
            }
            Tag::TableHead => self.table.get_or_insert_default().head = true,
            Tag::TableRow | Tag::TableCell => {}
            Tag::Emphasis => self.inline.italic += 1,
            Tag::Strong => self.inline.bold += 1,
            Tag::Strikethrough => self.inline.strike += 1,
            Tag::Link { dest_url, .. } => self.inline.link = Some(dest_url.to_string()),
            Tag::Image { dest_url, .. } => self.image = Some((dest_url.to_string(), String::new())),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::Item => self.flush(),
            TagEnd::Heading(_) => {
                self.flush();
                self.heading = None;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
            }
            TagEnd::CodeBlock => self.end_code(),
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                self.item_numbered = true;
            }
            TagEnd::TableCell => self.end_cell(),
            TagEnd::TableHead | TagEnd::TableRow => self.end_row(),
            TagEnd::Table => self.end_table(),
            TagEnd::Emphasis => self.inline.italic = self.inline.italic.saturating_sub(1),
            TagEnd::Strong => self.inline.bold = self.inline.bold.saturating_sub(1),
            TagEnd::Strikethrough => self.inline.strike = self.inline.strike.saturating_sub(1),
            TagEnd::Link => self.inline.link = None,
            TagEnd::Image => self.end_image(),
            _ => {}
        }
    }

    fn start_list(&mut self, start: Option<u64>) {
        self.flush();
        let num_id = match start {
            None => BULLETS,
            Some(n) => {
                let id = self.next_num;
                self.next_num += 1;
                let level = self.lists.len();
                let numbering = Numbering::new(id, DECIMAL)
                    .add_override(LevelOverride::new(level).start(n as usize));
                self.docx = std::mem::take(&mut self.docx).add_numbering(numbering);
                id
            }
        };
        self.lists.push(List { num_id });
    }

    /// Opens a paragraph for what comes (a heading, a list item, a quote).
    fn open(&mut self) {
        if self.para.is_some() {
            return;
        }
        let mut p = Paragraph::new();
        if let Some(level) = self.heading {
            p = p.style(&format!("Heading{level}"));
        } else if let Some(list) = self.lists.last() {
            let depth = self.lists.len() - 1;
            if !self.item_numbered {
                p = p.numbering(NumberingId::new(list.num_id), IndentLevel::new(depth));
                self.item_numbered = true;
            } else {
                p = p.indent(Some(720 * (depth as i32 + 1)), None, None, None);
            }
        } else if self.quote > 0 {
            p = p.style("Quote");
        }
        self.para = Some(p);
    }

    fn text(&mut self, text: &str) {
        if let Some((_, code)) = &mut self.code {
            code.push_str(text);
            return;
        }
        if let Some((_, alt)) = &mut self.image {
            alt.push_str(text);
            return;
        }
        let mut run = Run::new().add_text(text);
        if self.inline.bold > 0 {
            run = run.bold();
        }
        if self.inline.italic > 0 {
            run = run.italic();
        }
        if self.inline.strike > 0 {
            run = run.strike();
        }
        self.run(run);
    }

    /// Adds a run to the open paragraph (inside the link in force).
    fn run(&mut self, run: Run) {
        self.open();
        let p = self.para.take().unwrap_or_default();
        self.para = Some(match &self.inline.link {
            Some(url) => p.add_hyperlink(
                Hyperlink::new(url.as_str(), HyperlinkType::External)
                    .add_run(run.color("0B57D0").underline("single")),
            ),
            None => p.add_run(run),
        });
    }

    fn end_code(&mut self) {
        let Some((mermaid, source)) = self.code.take() else {
            return;
        };
        if !mermaid {
            return self.code_block(&source);
        }
        let drawn = self
            .assets
            .diagrams
            .get_mut(self.diagram)
            .map(|d| std::mem::replace(d, Err(String::new())));
        self.diagram += 1;
        match drawn {
            Some(Ok(picture)) => {
                let (w, h) = fit(picture.width, picture.height);
                let pic =
                    Pic::new_with_dimensions(picture.png, picture.width, picture.height).size(w, h);
                self.push(
                    Paragraph::new()
                        .align(AlignmentType::Center)
                        .add_run(Run::new().add_image(pic)),
                );
            }
            other => {
                let why = match other {
                    Some(Err(e)) if !e.is_empty() => e,
                    _ => "the diagram was not drawn".into(),
                };
                let note = format!("This diagram could not be drawn: {why}");
                self.push(
                    Paragraph::new().add_run(Run::new().add_text(note).color("B3261E").italic()),
                );
                self.code_block(&source);
            }
        }
    }

    fn code_block(&mut self, source: &str) {
        let mut p = Paragraph::new().style("Code");
        for (i, line) in source.trim_end_matches('\n').split('\n').enumerate() {
            let mut run = Run::new();
            if i > 0 {
                run = run.add_break(BreakType::TextWrapping);
            }
            p = p.add_run(run.add_text(line));
        }
        self.push(p);
    }

    fn end_image(&mut self) {
        let Some((url, alt)) = self.image.take() else {
            return;
        };
        match (self.assets.image)(&url).and_then(|bytes| picture(&bytes)) {
            Ok(pic) => self.run(Run::new().add_image(pic)),
            Err(why) => {
                let label = if alt.is_empty() { url.clone() } else { alt };
                self.text(&format!("[picture: {label} ({why})]"));
            }
        }
    }

    fn end_cell(&mut self) {
        self.flush();
        let Some(t) = self.table.as_mut() else {
            return;
        };
        let mut cell = TableCell::new();
        let paras = std::mem::take(&mut t.cell);
        if paras.is_empty() {
            cell = cell.add_paragraph(Paragraph::new());
        }
        for p in paras {
            cell = cell.add_paragraph(p);
        }
        if t.head {
            cell = cell.shading(Shading::new().fill("E8ECF1"));
        }
        t.cells.push(cell);
    }

    fn end_row(&mut self) {
        if let Some(t) = self.table.as_mut() {
            t.columns = t.columns.max(t.cells.len());
            let row = TableRow::new(std::mem::take(&mut t.cells)).cant_split();
            t.rows.push(row);
            t.head = false;
        }
    }

    fn end_table(&mut self) {
        if let Some(t) = self.table.take() {
            // Grid columns sharing the text width (an empty `w:tblGrid`
            // is invalid OOXML: readers cannot address the cells).
            let columns = t.columns.max(1);
            let table = Table::new(t.rows)
                .set_grid(vec![TEXT_WIDTH / columns; columns])
                .width(5000, WidthType::Pct);
            self.docx = std::mem::take(&mut self.docx).add_table(table);
        }
    }

    fn page_break(&mut self) {
        self.flush();
        self.push(Paragraph::new().add_run(Run::new().add_break(BreakType::Page)));
    }

    /// Ends the open paragraph.
    fn flush(&mut self) {
        if let Some(p) = self.para.take() {
            self.push(p);
        }
    }

    /// Adds a finished paragraph where it belongs (a table cell or the body).
    fn push(&mut self, p: Paragraph) {
        let bold_cell = self.table.as_ref().is_some_and(|t| t.head);
        match self.table.as_mut() {
            Some(t) => t
                .cell
                .push(if bold_cell { p.style("TableHeader") } else { p }),
            None => self.docx = std::mem::take(&mut self.docx).add_paragraph(p),
        }
    }
}

fn mono() -> RunFonts {
    RunFonts::new().ascii(MONO).hi_ansi(MONO)
}

/// A picture's size in EMUs, shrunk to the text width.
fn fit(width_px: u32, height_px: u32) -> (u32, u32) {
    let (w, h) = (width_px.max(1) * EMU_PER_PX, height_px.max(1) * EMU_PER_PX);
    if w <= TEXT_WIDTH_EMU {
        return (w, h);
    }
    (
        TEXT_WIDTH_EMU,
        (h as u64 * TEXT_WIDTH_EMU as u64 / w as u64) as u32,
    )
}

/// A picture file as a DOCX picture (PNG inside), or why it cannot be one.
fn picture(bytes: &[u8]) -> Result<Pic, String> {
    let img = image::load_from_memory(bytes).map_err(|e| format!("not a readable picture: {e}"))?;
    let (w, h) = (img.width(), img.height());
    let mut png = std::io::Cursor::new(Vec::new());
    img.write_to(&mut png, image::ImageFormat::Png)
        .map_err(|e| format!("could not be converted: {e}"))?;
    let (ew, eh) = fit(w, h);
    Ok(Pic::new_with_dimensions(png.into_inner(), w, h).size(ew, eh))
}

/// An A4 document with Baton's styles and list numberings.
fn base_document() -> Docx {
    let mut docx = Docx::new()
        .page_size(PAGE_WIDTH, 16838)
        .page_margin(
            PageMargin::new()
                .top(1134)
                .bottom(1134)
                .left(SIDE_MARGIN)
                .right(SIDE_MARGIN),
        )
        .default_fonts(RunFonts::new().ascii("Calibri").hi_ansi("Calibri"))
        .default_size(22);
    for (level, size) in [(1, 36), (2, 30), (3, 26), (4, 24), (5, 22), (6, 22)] {
        let style = Style::new(format!("Heading{level}"), StyleType::Paragraph)
            .name(format!("heading {level}"))
            .based_on("Normal")
            .next("Normal")
            .size(size)
            .bold()
            .color("1F3864")
            .outline_lvl(level - 1)
            .line_spacing(LineSpacing::new().before(280).after(100));
        docx = docx.add_style(style);
    }
    let title = Style::new("Title", StyleType::Paragraph)
        .name("Title")
        .size(56)
        .bold()
        .line_spacing(LineSpacing::new().before(4000).after(240));
    let subtitle = Style::new("Subtitle", StyleType::Paragraph)
        .name("Subtitle")
        .size(28)
        .color("555555");
    let quote = Style::new("Quote", StyleType::Paragraph)
        .name("Quote")
        .italic()
        .color("444444")
        .indent(Some(720), None, None, None);
    let code = Style::new("Code", StyleType::Paragraph)
        .name("Code")
        .fonts(mono())
        .size(19)
        .line_spacing(LineSpacing::new().before(80).after(80));
    let header = Style::new("TableHeader", StyleType::Paragraph)
        .name("Table Header")
        .bold();
    docx.add_style(title)
        .add_style(subtitle)
        .add_style(quote)
        .add_style(code)
        .add_style(header)
        .add_abstract_numbering(numbering(BULLETS, false))
        .add_numbering(Numbering::new(BULLETS, BULLETS))
        .add_abstract_numbering(numbering(DECIMAL, true))
        .add_numbering(Numbering::new(DECIMAL, DECIMAL))
}

/// Nine levels of bullets or of numbers (1., a., i., …).
fn numbering(id: usize, numbered: bool) -> AbstractNumbering {
    let mut n = AbstractNumbering::new(id);
    for level in 0..9 {
        let (format, text) = if numbered {
            let format = ["decimal", "lowerLetter", "lowerRoman"][level % 3];
            (format, format!("%{}.", level + 1))
        } else {
            ("bullet", ["•", "◦", "▪"][level % 3].to_string())
        };
        let left = 720 * (level as i32 + 1);
        n = n.add_level(
            Level::new(
                level,
                Start::new(1),
                NumberFormat::new(format),
                LevelText::new(text),
                LevelJc::new("left"),
            )
            .indent(
                Some(left),
                Some(SpecialIndentType::Hanging(360)),
                None,
                None,
            ),
        );
    }
    n
}
