"""Regenerates tests/conformance/skip.txt from a run of the conformance runner.

Every failing test must be skipped for a stated reason; this script derives the reason from
the runner's error (dtype, opset, training mode) and refuses to write anything for a failure
it cannot explain, so real bugs never get skipped by accident.

usage: build/native/webnx_conformance ../shared/onnx-node-tests | \
         /usr/bin/python3 scripts/conformance_skips.py > tests/conformance/skip.txt
"""
import re
import sys

RULES = [
    (re.compile(r"has dtype (\w+)"),
     lambda m: f"dtype {m.group(1)} is not a webnx dtype (the numeric types are; strings, bfloat16, float8 and 4-bit are not)"),
    (re.compile(r"Cast to (\w+) is not supported"),
     lambda m: f"a Cast to {m.group(1)}, not a webnx dtype"),
    (re.compile(r"\((\w+)\): input \d+ \('[^']*'\) is (\w+), expected"),
     lambda m: f"{m.group(1)} does not compute in {m.group(2)} yet"),
    (re.compile(r"imports opset (\d+) of the default domain"),
     lambda m: f"opset {m.group(1)} is outside the supported range 7-25"),
    (re.compile(r"is not a tensor"), lambda m: "sequence/optional values are not supported"),
    (re.compile(r"training mode|training_mode"), lambda m: "training mode is not supported (inference runtime)"),
]


def main():
    lines = []
    unexplained = []
    for line in sys.stdin:
        if not line.startswith("FAIL "):
            continue
        name, _, error = line[5:].partition(": ")
        for pattern, reason in RULES:
            match = pattern.search(error)
            if match:
                lines.append(f"{name} {reason(match)}")
                break
        else:
            unexplained.append(line.strip())
    if unexplained:
        sys.stderr.write("failures without a known reason (fix them, do not skip):\n")
        sys.stderr.write("\n".join(unexplained) + "\n")
        sys.exit(1)
    print("# ONNX node tests webnx skips, one per line: test name, then the reason.")
    print("# Regenerate with scripts/conformance_skips.py (see its docstring).")
    print("\n".join(sorted(lines)))


if __name__ == "__main__":
    main()
