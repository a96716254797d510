#!/usr/bin/env python3
"""`make package`'s --config for `tauri build`: the speech-to-text sidecar
and, with --llama-libs (a `cpu-variants` build), llama.cpp's shared
libraries and CPU-kernel modules from the release directory, installed in
/usr/lib/baton (the binaries' rpath has $ORIGIN/../lib/baton, and the
kernel loader looks there), with the OpenMP runtime the modules link
(libgomp1) added to the package's dependencies. Prints JSON; fails when a
library is missing.

usage: package-config.py RELEASE_DIR [--llama-libs]"""
import json
import pathlib
import re
import sys

SONAME = re.compile(r"lib(llama|ggml)[\w-]*\.so\.\d+")
MODULE = re.compile(r"libggml-cpu-[\w.]+\.so")


def llama_files(release: pathlib.Path) -> dict:
    files = {}
    for p in sorted(release.iterdir()):
        if SONAME.fullmatch(p.name) or MODULE.fullmatch(p.name):
            # The real file under the name the loader asks for.
            files[f"/usr/lib/baton/{p.name}"] = str(p.resolve())
    names = [f.rsplit("/", 1)[1] for f in files]
    for needed in ("libllama.so.", "libggml-base.so.", "libggml-cpu-"):
        if not any(n.startswith(needed) for n in names):
            sys.exit(f"package-config: no {needed}* in {release}: build with --features cpu-variants first")
    return files


def main() -> None:
    release = pathlib.Path(sys.argv[1])
    config = {"bundle": {"externalBin": ["binaries/baton-stt"]}}
    if "--llama-libs" in sys.argv[2:]:
        conf = json.loads((pathlib.Path(__file__).parent.parent / "src-tauri/tauri.conf.json").read_text())
        # A merge patch replaces lists whole: the configured ones and libgomp1.
        depends = conf["bundle"]["linux"]["deb"]["depends"] + ["libgomp1"]
        config["bundle"]["linux"] = {"deb": {"files": llama_files(release), "depends": depends}}
    print(json.dumps(config))


if __name__ == "__main__":
    main()
