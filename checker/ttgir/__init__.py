"""TTGIR modules turned into checks (the checks stage, after `checker.prove`).

- `builder`: `kernel_checks(modules, file)`, the `Builder` each op rule adds its checks to, and the op-rule
  registry (`op_check`); `read_ir_file` reads a `.ttgir` / `.mlir` file and builds its checks;
- `ops_common`, `ops_nvidia`, `ops_amd`: the op rules, per target family;
- `allocation` (with `liveness`): the kernel's shared memory exactly as Triton allocates it;
- `pairing`: which local stores and loads share a buffer (the pairs a suggested layout must serve);
- `axis_info`: Triton's AxisInfo analysis of pointers (contiguity, divisibility, constancy).
"""
