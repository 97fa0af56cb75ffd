# Fidelity cases for the core layers every graph uses: Input feeds, Split
# fan-out, and ReLU through the Net (one small example per feature of the
# case format: several outputs, several inputs, input ranges).
# Format: tests/fidelity/README.md.

CASES = [
    {"name": "split_2_d3", "type": "Split", "params": "", "inputs": [[7, 5, 3]], "outputs": 2},
    {"name": "split_3_d1", "type": "Split", "params": "", "inputs": [[19]], "outputs": 3},
    {"name": "split_4_d4", "type": "Split", "params": "", "inputs": [[5, 4, 3, 2]], "outputs": 4},
    {"name": "relu_wide_range", "type": "ReLU", "params": "0=0.25", "inputs": [[11, 3]], "input_range": [-100, 100]},
    {"name": "relu_tiny_range", "type": "ReLU", "params": "", "inputs": [[13]], "input_range": [-1e-3, 1e-3]},
    {"name": "eltwise_ranges", "type": "Eltwise", "params": "0=1", "inputs": [[6, 5, 2], [6, 5, 2]],
     "input_ranges": [[0, 1], [-10, -5]]},
]
