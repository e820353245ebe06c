"""Unzipped size of every Lambda function with its layers, as ``sam build`` produces them.

Measures the build folder that ``scripts/lambda_local.sh build`` writes (``sam build`` of
template.yaml, no container; default ``.lambda-local/sam-build``, or
``$GROUNDWORK_SAM_BUILD_DIR``): every file counts, the ``.pyc`` that pip writes included, as
Lambda counts the unzipped function and layers against 250 MB. The chat function's Web
Adapter layer is measured from the adapter built from the same crate
(``.lambda-local/adapter-layer``).

Run: ``scripts/lambda_local.sh build && .venv/bin/python bench/package_size.py``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from groundwork.local_lambda.functions import load
from groundwork.local_lambda.stack import default_build_dir, default_tools_dir

LIMIT = 250 * 1024 * 1024  # Lambda: function code and all its layers, unzipped
MB = 1024 * 1024


def sizes(path: Path) -> tuple[int, int]:
    """All bytes under ``path``, and those of its ``.pyc`` files."""
    total = pyc = 0
    for file in path.rglob("*"):
        if file.is_file() and not file.is_symlink():
            size = file.stat().st_size
            total += size
            pyc += size if file.suffix == ".pyc" else 0
    return total, pyc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=Path, default=default_build_dir())
    args = parser.parse_args()
    functions = load(args.build_dir)
    adapter = default_tools_dir() / "adapter-layer"
    layers: dict[str, Path] = {}
    for function in functions.values():
        layers |= {Path(p).name: Path(p) for p in function.layers}
        if function.external_layers:
            layers["LambdaAdapterLayer (built from the crate)"] = adapter
    measured = {name: sizes(path) for name, path in layers.items()}

    print("| layer | unzipped MB | of which .pyc MB |")
    print("|---|---:|---:|")
    for name, (total, pyc) in measured.items():
        print(f"| {name} | {total / MB:.1f} | {pyc / MB:.1f} |")
    for name, path in layers.items():
        if (path / "python").is_dir() and len(list((path / "python").iterdir())) > 3:
            biggest = sorted(
                ((sizes(p)[0], p.name) for p in (path / "python").iterdir() if p.is_dir()),
                reverse=True,
            )
            print(f"\nlargest in {name}:", ", ".join(f"{n} {s / MB:.1f}" for s, n in biggest[:8]))
    print()
    print("| function | code MB | with its layers MB | of 250 MB | fits |")
    print("|---|---:|---:|---:|---|")
    for function in functions.values():
        code, _ = sizes(Path(function.code))
        own = [Path(p).name for p in function.layers]
        if function.external_layers:
            own.append("LambdaAdapterLayer (built from the crate)")
        total = code + sum(measured[name][0] for name in own)
        print(
            f"| {function.name} | {code / MB:.3f} | {total / MB:.1f} "
            f"| {100 * total / LIMIT:.0f}% | {'yes' if total <= LIMIT else 'NO'} |"
        )


if __name__ == "__main__":
    main()
