"""layoutcheck inside other tools: `triton` (the compile hook `checker.triton.install` and `layoutcheck run`,
whose child processes load `_run/sitecustomize.py`) and `pytest_plugin` (``pytest --layoutcheck``)."""
