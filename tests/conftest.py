import json
import pathlib

import pytest

CONFORMANCE = pathlib.Path(__file__).parent / "conformance"


def load_jsonl(name):
    with open(CONFORMANCE / name) as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="session")
def lowering_cases():
    return load_jsonl("lowering.jsonl")
