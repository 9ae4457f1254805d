"""Running checks (after the checks stage, before the reports).

- `verification`: `checker.verify` and the CLI's `verify`: inputs found and read, checks built, decided, reported;
- `runner`: checks decided in a deterministic order, with proof sharing and progress;
- `forked`, `executors`: worker processes (forked on Linux) and Ray;
- `diff`: `checker.diff` / `layoutcheck diff`, two sides verified and their checks matched.
"""
