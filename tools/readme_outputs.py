#!/usr/bin/env python3
"""The outputs shown in README.md's "The `capsweep` command" section, from a fresh run.

Between <!-- capsweep-outputs-begin --> and <!-- capsweep-outputs-end --> the README holds a
shell block: commands (a trailing backslash continues one), each followed by what it printed to
stdout as "#  " lines. This runs every command as shown, in a scratch folder where
build/cli/capsweep is the given binary and scenes/ the repository's scenes, then

  readme_outputs.py [--binary PATH]           rewrites the "#  " lines with what they print now;
  readme_outputs.py --check [--binary PATH]   exits 1, showing the difference, when they differ.

The check ignores what depends on the machine: times, rates, speed-ups and the SIMD variant.
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
BEGIN = "<!-- capsweep-outputs-begin -->\n```sh\n"
END = "```\n<!-- capsweep-outputs-end -->"
OUTPUT = "#  "

# What a run on another machine (or the same one, later) prints differently.
MACHINE = [
    (re.compile(r"agent-ticks/s: .*"), "agent-ticks/s: ~"),
    (re.compile(r"\b\d+(\.\d+)? (ms|s)\b"), r"~ \2"),
    (re.compile(r"\b\d+ sweeps/s \(\d+ per core"), "~ sweeps/s (~ per core"),
    (re.compile(r"\(\d+(\.\d+)?x\)"), "(~x)"),
    (re.compile(r"\b(sse2|sse4_2|avx2|avx512f) kernel( \([^)]*\))?"), "~ kernel"),
]


def masked(lines):
    out = []
    for line in lines:
        for pattern, replacement in MACHINE:
            line = pattern.sub(replacement, line)
        out.append(line)
    return out


def split_readme(text):
    start = text.find(BEGIN)
    end = text.find(END, start)
    if start < 0 or end < 0:
        sys.exit(f"{README}: no block between {BEGIN.splitlines()[0]} and {END.splitlines()[-1]}")
    start += len(BEGIN)
    return text[:start], text[start:end], text[end:]


def commands(block):
    """The block's commands, each as the lines it is written on (outputs dropped)."""
    result, current = [], []
    for line in block.splitlines():
        if line.startswith(OUTPUT) or line == OUTPUT.rstrip():
            continue
        current.append(line)
        if not line.endswith("\\"):
            result.append(current)
            current = []
    if current:
        sys.exit(f"{README}: the last command ends with a backslash")
    return result


def run(command_lines, scratch):
    command = "\n".join(command_lines)
    done = subprocess.run(["bash", "-c", command], cwd=scratch, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{command}\nexited {done.returncode}:\n{done.stdout}{done.stderr}")
    return [(OUTPUT + line).rstrip() for line in done.stdout.splitlines()]


def fresh_block(block, binary):
    with tempfile.TemporaryDirectory(prefix="capsweep_readme_") as scratch:
        os.makedirs(os.path.join(scratch, "build", "cli"))
        os.symlink(os.path.abspath(binary), os.path.join(scratch, "build", "cli", "capsweep"))
        os.symlink(os.path.join(ROOT, "scenes"), os.path.join(scratch, "scenes"))
        lines = []
        for command_lines in commands(block):
            lines += command_lines
            lines += run(command_lines, scratch)
    return "".join(line + "\n" for line in lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "cli", "capsweep"))
    parser.add_argument("--check", action="store_true", help="compare instead of rewriting")
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"{args.binary}: no capsweep binary there (--binary PATH)")

    with open(README, encoding="utf-8") as f:
        before, block, after = split_readme(f.read())
    fresh = fresh_block(block, args.binary)
    if not args.check:
        with open(README, "w", encoding="utf-8") as f:
            f.write(before + fresh + after)
        print(f"{README}: {len(commands(block))} commands, outputs rewritten")
        return
    shown, now = masked(block.splitlines()), masked(fresh.splitlines())
    if shown != now:
        diff = difflib.unified_diff(shown, now, "README.md (shown)", "fresh run", lineterm="")
        sys.exit("README.md's command outputs are stale (times, rates and the SIMD variant ignored);\n"
                 "regenerate them with tools/readme_outputs.py --binary build/cli/capsweep\n" + "\n".join(diff))
    print(f"README.md: the outputs of {len(commands(block))} commands are current")


if __name__ == "__main__":
    main()
