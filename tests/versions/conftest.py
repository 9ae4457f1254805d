import json
import pathlib

HERE = pathlib.Path(__file__).parent
VERSIONS = ("3.5", "3.6", "3.7", "3.8", "3.9")


def load_version_jsonl(folder: str, version: str) -> list[dict]:
    """The records of tests/versions/<folder>/<version>.jsonl (made by the tools/ named in each test)."""
    with open(HERE / folder / f"{version}.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]
