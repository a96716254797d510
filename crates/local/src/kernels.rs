//! Which of llama.cpp's CPU kernels run the embedded model.
//!
//! Without the `cpu-variants` feature the kernels are compiled in, for
//! x86-64-v3 (AVX2, FMA, F16C; `.cargo/config.toml`). With it, llama.cpp is
//! built once per processor level (x86-64 from plain SSE2 through Haswell,
//! Skylake-X, Ice Lake, Zen 4 … ; Arm from v8.0 to v9.2) as modules beside
//! the binary, and the best one for this processor is loaded before
//! llama.cpp starts: each module scores the processor (0: it lacks an
//! instruction the module uses) and the highest score wins.
//!
//! ggml's own `ggml_backend_load_best` does the same, but it cannot be told
//! to pass over a module, so this is our own short loop over the same scores.
//! It passes over the AMX modules (`sapphirerapids`) unless [`KERNELS_ENV`]
//! names one: llama.cpp's AMX kernels crashed (SIGSEGV in
//! `ggml_backend_amx_mul_mat`) on a virtual machine whose processor reports
//! AMX, with the operating system's permission granted, and a crash costs
//! more than the AVX-512 kernels' speed. It says why when a module cannot
//! be opened (a missing `libgomp.so.1`, say) instead of calling the
//! processor unfit.

use std::sync::OnceLock;

/// Environment variable naming the CPU kernels to use instead of the best
/// scoring ones (`haswell`, `zen4`, … as in `libggml-cpu-<name>.so`).
pub const KERNELS_ENV: &str = "BATON_CPU_KERNELS";

static CHOSEN: OnceLock<String> = OnceLock::new();

/// The CPU kernels llama.cpp runs with: the module chosen for this processor
/// (`zen4`, `haswell`, …) with the `cpu-variants` feature, once a model has
/// been loaded (`None` before); otherwise the kernels compiled in.
pub fn cpu_kernels() -> Option<&'static str> {
    if cfg!(feature = "cpu-variants") {
        CHOSEN.get().map(String::as_str)
    } else if cfg!(target_arch = "x86_64") {
        Some("x86-64-v3 (compiled in)")
    } else {
        Some("compiled in")
    }
}

/// One CPU-kernel module and the score it gives this processor.
#[cfg(any(test, feature = "cpu-variants"))]
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    /// `haswell` for `libggml-cpu-haswell.so`; `cpu` for a lone `libggml-cpu.so`.
    pub name: String,
    /// The module's score (0: the processor lacks an instruction the module
    /// uses), or why the module could not be opened.
    pub score: Result<i32, String>,
    /// Uses AMX: chosen only by name (see the module docs).
    pub uses_amx: bool,
}

#[cfg(any(test, feature = "cpu-variants"))]
impl Candidate {
    fn runs(&self) -> bool {
        matches!(self.score, Ok(s) if s > 0)
    }
}

/// Picks the module to load: the one `wanted` names, else the best score
/// among those that run here and do not use AMX.
#[cfg(any(test, feature = "cpu-variants"))]
pub(crate) fn choose<'a>(
    candidates: &'a [Candidate],
    wanted: Option<&str>,
) -> Result<&'a Candidate, String> {
    let list = |keep: fn(&Candidate) -> bool| {
        let names: Vec<&str> = candidates
            .iter()
            .filter(|c| keep(c))
            .map(|c| c.name.as_str())
            .collect();
        names.join(", ")
    };
    if let Some(wanted) = wanted.filter(|w| !w.is_empty()) {
        let Some(c) = candidates.iter().find(|c| c.name == wanted) else {
            return Err(format!(
                "{KERNELS_ENV}={wanted} names no CPU kernels of this build; it has: {}",
                list(|_| true)
            ));
        };
        return match &c.score {
            _ if c.runs() => Ok(c),
            Err(e) => Err(format!(
                "the CPU kernels {KERNELS_ENV}={wanted} names could not be opened: {e}"
            )),
            Ok(_) => Err(format!(
                "{KERNELS_ENV}={wanted} names CPU kernels this processor cannot run; it can run: {}",
                list(Candidate::runs)
            )),
        };
    }
    if let Some(best) = candidates
        .iter()
        .filter(|c| c.runs() && !c.uses_amx)
        .max_by_key(|c| c.score.as_ref().map_or(0, |s| *s))
    {
        return Ok(best);
    }
    match candidates.iter().find_map(|c| c.score.as_ref().err()) {
        Some(e) => Err(format!("llama.cpp's CPU kernels could not be opened: {e}")),
        None => Err("none of llama.cpp's CPU kernels can run on this processor".to_string()),
    }
}

#[cfg(feature = "cpu-variants")]
pub(crate) use modules::load;

/// Finding, scoring and loading the modules: ggml's C API and the
/// modules' own score functions, through FFI (no crate wraps these).
#[cfg(feature = "cpu-variants")]
#[allow(unsafe_code)]
mod modules {
    use super::{CHOSEN, Candidate, KERNELS_ENV, choose};
    use std::ffi::{CString, c_int};
    use std::path::{Path, PathBuf};

    const PREFIX: &str = if cfg!(windows) { "ggml-" } else { "libggml-" };
    const SUFFIX: &str = if cfg!(windows) { ".dll" } else { ".so" };
    /// Modules whose kernels use AMX (ggml's x86 variant list).
    const AMX_MODULES: [&str; 1] = ["sapphirerapids"];

    /// Loads the best CPU kernels (and the GPU module of a GPU build) into
    /// ggml. Call before llama.cpp's backend starts; once per process.
    pub(crate) fn load() -> Result<(), String> {
        quiet_logs();
        let dir = module_dir().ok_or_else(|| {
            format!(
                "llama.cpp's CPU kernels ({PREFIX}cpu-*{SUFFIX}) are missing: they belong beside the program ({}); rebuild it with `make build`",
                exe_dir().map(|d| d.display().to_string()).unwrap_or_default()
            )
        })?;
        let candidates = scan(&dir);
        let wanted = std::env::var(KERNELS_ENV).ok();
        let pick = choose(&candidates, wanted.as_deref())?;
        register(&dir.join(file_name(&pick.name)))?;
        load_gpu_module(&dir);
        tracing::info!(kernels = %pick.name, score = pick.score.as_ref().map_or(0, |s| *s), dir = %dir.display(), "llama.cpp CPU kernels chosen");
        let _ = CHOSEN.set(pick.name.clone());
        Ok(())
    }

    /// The GPU backend of a GPU build with `cpu-variants` (a module too);
    /// without it the model runs on the CPU, so a failure is only logged.
    fn load_gpu_module(dir: &Path) {
        let gpu = [
            (cfg!(feature = "cuda"), "cuda"),
            (cfg!(feature = "vulkan"), "vulkan"),
            (cfg!(feature = "metal"), "metal"),
        ];
        for (_, name) in gpu.into_iter().filter(|(on, _)| *on) {
            let path = dir.join(format!("{PREFIX}{name}{SUFFIX}"));
            if let Err(e) = register(&path) {
                tracing::warn!("{e}; the model runs on the CPU");
            }
        }
    }

    /// Keeps ggml's "loaded CPU backend" line off the terminal, as
    /// `LlamaBackend::void_logs` does for the rest once llama.cpp starts.
    fn quiet_logs() {
        unsafe extern "C" fn quiet(
            _level: llama_cpp_sys_2::ggml_log_level,
            _text: *const std::ffi::c_char,
            _data: *mut std::ffi::c_void,
        ) {
        }
        // SAFETY: installs a callback that ignores its arguments.
        unsafe { llama_cpp_sys_2::llama_log_set(Some(quiet), std::ptr::null_mut()) };
    }

    fn exe_dir() -> Option<PathBuf> {
        Some(std::env::current_exe().ok()?.parent()?.to_path_buf())
    }

    /// Beside the program (`make build`, and tests' binaries in target/),
    /// `../lib/baton` from it (an installed package), or where llama.cpp was
    /// built (test binaries in target/*/deps).
    fn module_dir() -> Option<PathBuf> {
        let exe = exe_dir();
        let dirs = [
            exe.clone(),
            exe.map(|d| d.join("../lib/baton")),
            llama_cpp_sys_2::BACKENDS_DIR.map(PathBuf::from),
        ];
        dirs.into_iter()
            .flatten()
            .find(|d| d.join(file_name("cpu")).exists() || !variants(d).is_empty())
    }

    fn file_name(name: &str) -> String {
        if name == "cpu" {
            format!("{PREFIX}cpu{SUFFIX}")
        } else {
            format!("{PREFIX}cpu-{name}{SUFFIX}")
        }
    }

    /// The names of the CPU modules in `dir` (`haswell`, `zen4`, …), sorted.
    fn variants(dir: &Path) -> Vec<String> {
        let stem = format!("{PREFIX}cpu-");
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                Some(name.strip_prefix(&stem)?.strip_suffix(SUFFIX)?.to_string())
            })
            .collect();
        names.sort();
        names
    }

    /// The CPU modules in `dir` with their scores; a lone `libggml-cpu.so`
    /// (a build without variants) scores 1.
    fn scan(dir: &Path) -> Vec<Candidate> {
        let mut found: Vec<Candidate> = variants(dir)
            .into_iter()
            .map(|name| Candidate {
                score: score(&dir.join(file_name(&name))),
                uses_amx: AMX_MODULES.contains(&name.as_str()),
                name,
            })
            .collect();
        if found.is_empty() {
            found.push(Candidate {
                name: "cpu".into(),
                score: Ok(1),
                uses_amx: false,
            });
        }
        found
    }

    /// The module's own `ggml_backend_score()` (0: the processor lacks an
    /// instruction it uses), or why the module could not be opened.
    fn score(path: &Path) -> Result<i32, String> {
        // SAFETY: the module is one of llama.cpp's CPU backends built with
        // this program; loading it runs only its static initialisers, and
        // `ggml_backend_score` is `int (*)(void)` (ggml-backend-impl.h).
        // The library outlives the call.
        unsafe {
            let lib = libloading::Library::new(path).map_err(|e| e.to_string())?;
            let f = lib
                .get::<unsafe extern "C" fn() -> c_int>(b"ggml_backend_score\0")
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(f())
        }
    }

    /// Registers a backend module with ggml.
    fn register(path: &Path) -> Result<(), String> {
        let c = path
            .to_str()
            .and_then(|p| CString::new(p).ok())
            .ok_or_else(|| format!("the path {} cannot be passed to llama.cpp", path.display()))?;
        // SAFETY: a NUL-terminated path; ggml copies what it keeps.
        let reg = unsafe { llama_cpp_sys_2::ggml_backend_load(c.as_ptr()) };
        if reg.is_null() {
            return Err(format!(
                "llama.cpp could not load its backend module {}",
                path.display()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str, score: i32) -> Candidate {
        Candidate {
            name: name.into(),
            score: Ok(score),
            uses_amx: name == "sapphirerapids",
        }
    }

    fn set() -> Vec<Candidate> {
        vec![
            c("alderlake", 0),
            c("haswell", 63),
            c("sapphirerapids", 4095),
            c("x64", 1),
            c("zen4", 2047),
        ]
    }

    #[test]
    fn the_best_score_wins_and_amx_only_by_name() {
        assert_eq!(choose(&set(), None).unwrap().name, "zen4");
        assert_eq!(choose(&set(), Some("")).unwrap().name, "zen4");
        let all = set();
        assert_eq!(
            choose(&all, Some("sapphirerapids")).unwrap().name,
            "sapphirerapids"
        );
    }

    #[test]
    fn a_named_choice_is_honoured_only_when_the_processor_can_run_it() {
        assert_eq!(choose(&set(), Some("x64")).unwrap().name, "x64");
        let e = choose(&set(), Some("alderlake")).unwrap_err();
        let (_, can_run) = e.split_once("it can run: ").expect(&e);
        assert_eq!(can_run, "haswell, sapphirerapids, x64, zen4");
        let e = choose(&set(), Some("icelake")).unwrap_err();
        assert!(
            e.contains("no CPU kernels of this build") && e.contains("alderlake"),
            "{e}"
        );
    }

    #[test]
    fn a_module_that_cannot_be_opened_says_why() {
        let broken = |name: &str| Candidate {
            name: name.into(),
            score: Err("libgomp.so.1: cannot open shared object file".into()),
            uses_amx: false,
        };
        let e = choose(&[broken("haswell"), broken("zen4")], None).unwrap_err();
        assert!(e.contains("could not be opened: libgomp.so.1"), "{e}");
        let mut mixed = set();
        mixed.push(broken("icelake"));
        assert_eq!(choose(&mixed, None).unwrap().name, "zen4");
        let e = choose(&mixed, Some("icelake")).unwrap_err();
        assert!(
            e.contains("BATON_CPU_KERNELS=icelake names could not be opened: libgomp"),
            "{e}"
        );
    }

    #[test]
    fn no_runnable_module_is_an_error() {
        let e = choose(&[c("zen4", 0)], None).unwrap_err();
        assert!(e.contains("none of llama.cpp's CPU kernels"), "{e}");
    }
}
