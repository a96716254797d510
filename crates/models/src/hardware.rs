//! This computer's memory, cores and GPU, and whether a model fits.

use serde::Serialize;

use crate::CatalogEntry;

/// A graphics card llama.cpp could offload layers to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Gpu {
    /// The card's name.
    pub name: String,
    /// Its own memory in bytes (for Apple silicon: the share of the
    /// unified memory the GPU may use).
    pub vram_bytes: u64,
}

/// What this computer has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hardware {
    /// Installed memory in bytes.
    pub ram_bytes: u64,
    /// Memory free now in bytes.
    pub available_bytes: u64,
    /// Logical CPU cores.
    pub cores: u32,
    /// The first GPU found, if any.
    pub gpu: Option<Gpu>,
}

/// Whether a model fits this computer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum Fit {
    /// Fits in the GPU's memory.
    Gpu,
    /// Fits in memory with room to spare.
    Comfortable,
    /// Fits, but leaves little memory for other programs.
    Tight,
    /// Needs more memory than this computer has.
    TooBig,
}

const MB: u64 = 1 << 20;

impl Hardware {
    /// Looks at this computer (a few milliseconds; `nvidia-smi` is asked
    /// only when it is installed).
    pub fn detect() -> Self {
        let mut sys = sysinfo::System::new();
        sys.refresh_memory();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        Self {
            ram_bytes: sys.total_memory(),
            available_bytes: sys.available_memory(),
            cores,
            gpu: detect_gpu(sys.total_memory()),
        }
    }

    /// This computer as first seen by this process (memory, cores and
    /// GPUs do not change while it runs; `nvidia-smi` is asked once).
    pub fn detected() -> &'static Hardware {
        static SEEN: std::sync::OnceLock<Hardware> = std::sync::OnceLock::new();
        SEEN.get_or_init(Self::detect)
    }

    /// How `entry` fits here.
    pub fn fit(&self, entry: &CatalogEntry) -> Fit {
        let need = entry.ram_mb.saturating_mul(MB);
        if self.gpu.as_ref().is_some_and(|g| g.vram_bytes >= need) {
            Fit::Gpu
        } else if self.ram_bytes >= need.saturating_mul(3) / 2 {
            Fit::Comfortable
        } else if self.ram_bytes >= need {
            Fit::Tight
        } else {
            Fit::TooBig
        }
    }

    /// The fit in words, for a catalog listing.
    pub fn hint(&self, entry: &CatalogEntry) -> String {
        let gb = |b: u64| b as f64 / (1u64 << 30) as f64;
        let need = gb(entry.ram_mb.saturating_mul(MB));
        match self.fit(entry) {
            Fit::Gpu => format!(
                "fits this computer: runs on the GPU ({:.1} GB needed)",
                need
            ),
            Fit::Comfortable => format!(
                "fits this computer: {need:.1} GB of {:.1} GB memory, on {} cores",
                gb(self.ram_bytes),
                self.cores
            ),
            Fit::Tight => format!(
                "tight: needs {need:.1} GB of this computer's {:.1} GB; close other programs",
                gb(self.ram_bytes)
            ),
            Fit::TooBig => format!(
                "too big: needs {need:.1} GB, this computer has {:.1} GB",
                gb(self.ram_bytes)
            ),
        }
    }
}

/// The first GPU: NVIDIA through `nvidia-smi`, AMD through sysfs, Apple
/// silicon's unified memory (two thirds of it usable by Metal).
fn detect_gpu(total_ram: u64) -> Option<Gpu> {
    if cfg!(all(target_os = "macos", target_arch = "aarch64")) {
        return Some(Gpu {
            name: "Apple GPU (unified memory)".into(),
            vram_bytes: total_ram / 3 * 2,
        });
    }
    nvidia_gpu().or_else(amd_gpu)
}

fn nvidia_gpu() -> Option<Gpu> {
    let out = std::process::Command::new("nvidia-smi")
        .args([
            "--query-gpu=name,memory.total",
            "--format=csv,noheader,nounits",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (name, mib) = text.lines().next()?.rsplit_once(',')?;
    Some(Gpu {
        name: name.trim().to_string(),
        vram_bytes: mib.trim().parse::<u64>().ok()? * MB,
    })
}

fn amd_gpu() -> Option<Gpu> {
    let cards = std::fs::read_dir("/sys/class/drm").ok()?;
    cards.flatten().find_map(|card| {
        let vram = std::fs::read_to_string(card.path().join("device/mem_info_vram_total")).ok()?;
        let bytes: u64 = vram.trim().parse().ok()?;
        (bytes > 0).then(|| Gpu {
            name: format!("AMD GPU ({})", card.file_name().to_string_lossy()),
            vram_bytes: bytes,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Catalog;

    fn with_ram(gb: u64, gpu_gb: Option<u64>) -> Hardware {
        Hardware {
            ram_bytes: gb << 30,
            available_bytes: gb << 30,
            cores: 4,
            gpu: gpu_gb.map(|g| Gpu {
                name: "card".into(),
                vram_bytes: g << 30,
            }),
        }
    }

    #[test]
    fn fit_follows_memory_and_gpu() {
        let mut e = Catalog::shipped().entries[0].clone();
        e.ram_mb = 4096;
        assert_eq!(with_ram(16, None).fit(&e), Fit::Comfortable);
        assert_eq!(with_ram(5, None).fit(&e), Fit::Tight);
        assert_eq!(with_ram(2, None).fit(&e), Fit::TooBig);
        assert_eq!(with_ram(2, Some(8)).fit(&e), Fit::Gpu);
        assert!(
            with_ram(2, None)
                .hint(&e)
                .starts_with("too big: needs 4.0 GB")
        );
    }

    #[test]
    fn this_computer_is_seen() {
        let h = Hardware::detect();
        assert!(h.ram_bytes > 1 << 30, "{h:?}");
        assert!(h.cores >= 1);
    }
}
