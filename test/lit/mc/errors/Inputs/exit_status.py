"""Run a command and print its exit status, so a RUN line can check the exact value.

Usage: ``%python exit_status.py COMMAND [ARG...]``. The command's stdout and stderr pass
through; ``exit status: N`` follows on stdout. This script itself always succeeds.
"""

import subprocess
import sys

completed = subprocess.run(sys.argv[1:], check=False, capture_output=True, text=True)
sys.stdout.write(completed.stdout)
sys.stdout.write(completed.stderr)
sys.stdout.write(f"exit status: {completed.returncode}\n")
